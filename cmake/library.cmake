# libengram: every module of the engine in one shared library that exports
# only the public API (include/engram/, ENGRAM_EXPORT), as the CMake target
# engram::engram, with its install rules, package configuration and
# pkg-config file. The CLI stays linked to the static modules, since it uses
# internals (configuration, servers) that the library does not export.
include(CMakePackageConfigHelpers)

# The modules in the library, lowest first; their third-party dependencies
# are linked privately, so users link libengram alone.
set(ENGRAM_LIBRARY_MODULES
  common config text store lexical http embed llm hyde vindex rank context engine
  eval_core eval loader capi)
set(ENGRAM_LIBRARY_OBJECTS "")
foreach(m ${ENGRAM_LIBRARY_MODULES})
  list(APPEND ENGRAM_LIBRARY_OBJECTS $<TARGET_OBJECTS:engram_${m}>)
endforeach()

add_library(libengram SHARED ${ENGRAM_LIBRARY_OBJECTS})
add_library(engram::engram ALIAS libengram)
# While the major version is 0 any minor release may change the ABI, so the
# SONAME carries both (libengram.so.0.1); from 1.0 on, the major alone.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ENGRAM_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(ENGRAM_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
set_target_properties(libengram PROPERTIES
  OUTPUT_NAME engram
  EXPORT_NAME engram
  VERSION ${PROJECT_VERSION}
  SOVERSION ${ENGRAM_SOVERSION}
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
target_include_directories(libengram PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(libengram INTERFACE cxx_std_20)
foreach(m ${ENGRAM_LIBRARY_MODULES})
  target_link_libraries(libengram PRIVATE engram_${m})
endforeach()
# Nothing undefined is left for the program to supply.
target_link_options(libengram PRIVATE -Wl,--no-undefined)

install(TARGETS libengram EXPORT engramTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS engram RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS engram-serve RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/engram)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/engram
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/engram/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/engram)

set(ENGRAM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/engram)
install(EXPORT engramTargets NAMESPACE engram:: DESTINATION ${ENGRAM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/engramConfig.cmake.in
  ${PROJECT_BINARY_DIR}/engramConfig.cmake INSTALL_DESTINATION ${ENGRAM_CMAKE_DIR})
# A 0.x release is compatible only with its own minor version (see SOVERSION).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ENGRAM_COMPATIBILITY SameMinorVersion)
else()
  set(ENGRAM_COMPATIBILITY SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/engramConfigVersion.cmake
  COMPATIBILITY ${ENGRAM_COMPATIBILITY})
install(FILES ${PROJECT_BINARY_DIR}/engramConfig.cmake
  ${PROJECT_BINARY_DIR}/engramConfigVersion.cmake DESTINATION ${ENGRAM_CMAKE_DIR})

file(RELATIVE_PATH ENGRAM_PC_PREFIX_FROM_PCDIR ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig
  ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/engram.pc.in ${PROJECT_BINARY_DIR}/engram.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/engram.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/docs/engram.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# `cpack -G DEB` (make package): the whole install as one Debian package,
# its library dependencies found by dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME engram)
set(CPACK_PACKAGE_VENDOR engram)
set(CPACK_PACKAGE_CONTACT "engram maintainers <engram@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "long-term memory of short facts for LLM agents")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "engram stores short facts in one SQLite file and returns the right ones for a query, fusing "
  "semantic (an embedded model), lexical (BM25) and temporal signals. The package holds the "
  "shared library libengram with its C and C++ headers, CMake and pkg-config files, the "
  "engram command, its manual page and the embedded model.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# Portuguese queries read its translations to find facts written in English.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS dict-freedict-por-eng)
set(CPACK_STRIP_FILES ON)
include(CPack)
