// ENGRAM_EXPORT marks what libengram exports: the public API of
// include/engram/ and nothing else. The library is built with hidden
// visibility, so a symbol without this mark stays inside it. In C++ it is
// an attribute-specifier, so it goes where [[...]] may: before a function's
// declaration, after `class` or `struct` (after [[nodiscard]]).
#ifndef ENGRAM_EXPORT_H_
#define ENGRAM_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#if defined(__cplusplus)
#define ENGRAM_EXPORT [[gnu::visibility("default")]]
#else
#define ENGRAM_EXPORT __attribute__((visibility("default")))
#endif
#else
#define ENGRAM_EXPORT
#endif

#endif  // ENGRAM_EXPORT_H_
