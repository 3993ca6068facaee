#include "src/vindex/vector_math.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "src/vindex/test_vectors.h"

namespace engram {
namespace {

using ::testing::HasSubstr;

double ReferenceDot(const float* a, const float* b, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

std::vector<float> Ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + (step * static_cast<float>(i));
  return v;
}

TEST(CheckVectorTest, AcceptsFiniteNonZeroVectorOfTheRightDimension) {
  const std::vector<float> v = {0.0f, -3.0f, 4.0f};
  EXPECT_TRUE(CheckVector(v, 3).ok());
}

TEST(CheckVectorTest, WrongDimensionSaysGotAndWant) {
  const std::vector<float> v = {1.0f, 2.0f, 3.0f};
  const Status status = CheckVector(v, 4);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("wrong dimension: got 3, want 4"));
}

TEST(CheckVectorTest, NanNamesItsComponent) {
  std::vector<float> v = {1.0f, 2.0f, 3.0f, 4.0f};
  v[2] = std::numeric_limits<float>::quiet_NaN();
  const Status status = CheckVector(v, 4);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("NaN at component 2"));
}

TEST(CheckVectorTest, InfinityOfEitherSignNamesItsComponent) {
  std::vector<float> v = {1.0f, 2.0f, 3.0f};
  v[0] = std::numeric_limits<float>::infinity();
  EXPECT_THAT(CheckVector(v, 3).message(), HasSubstr("infinity at component 0"));
  v[0] = 1.0f;
  v[1] = -std::numeric_limits<float>::infinity();
  const Status status = CheckVector(v, 3);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("infinity at component 1"));
}

TEST(CheckVectorTest, ZeroNormIsRejected) {
  const std::vector<float> v(8, 0.0f);
  const Status status = CheckVector(v, 8);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("zero norm"));
  EXPECT_THAT(CheckVector({}, 0).message(), HasSubstr("zero norm"));
}

TEST(CheckVectorTest, WrongDimensionIsReportedBeforeContent) {
  const std::vector<float> v = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_THAT(CheckVector(v, 2).message(), HasSubstr("got 1, want 2"));
}

TEST(NormalizeInPlaceTest, ScalesToUnitLength) {
  std::vector<float> v = {3.0f, 0.0f, -4.0f};
  ASSERT_TRUE(NormalizeInPlace(v).ok());
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.0f);
  EXPECT_FLOAT_EQ(v[2], -0.8f);
}

TEST(NormalizeInPlaceTest, HandlesTinyAndHugeComponents) {
  // Squares of these underflow or overflow in float.
  for (const float scale : {1e-30f, 1e30f, std::numeric_limits<float>::denorm_min()}) {
    std::vector<float> v = {scale, scale, scale, scale};
    ASSERT_TRUE(NormalizeInPlace(v).ok()) << scale;
    for (const float x : v) EXPECT_FLOAT_EQ(x, 0.5f) << scale;
  }
}

TEST(NormalizeInPlaceTest, LeavesABadVectorUnchanged) {
  std::vector<float> v = {2.0f, std::numeric_limits<float>::quiet_NaN()};
  const Status status = NormalizeInPlace(v);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("NaN at component 1"));
  EXPECT_EQ(v[0], 2.0f);
  std::vector<float> zero(3, 0.0f);
  EXPECT_FALSE(NormalizeInPlace(zero).ok());
}

TEST(DotTest, MatchesADoubleReferenceForEveryTailLength) {
  for (size_t n = 0; n <= 100; ++n) {
    const std::vector<float> a = Ramp(n, 0.5f, 0.25f);
    const std::vector<float> b = Ramp(n, -1.0f, 0.125f);
    const double want = ReferenceDot(a.data(), b.data(), n);
    EXPECT_NEAR(Dot(a.data(), b.data(), n), want, 1e-5 * (1.0 + std::abs(want))) << n;
    EXPECT_NEAR(DotPortable(a.data(), b.data(), n), want, 1e-5 * (1.0 + std::abs(want))) << n;
  }
}

TEST(DotTest, UnitVectorsAgreeWithReferenceAndPortableKernel) {
  for (const size_t dim : {size_t{384}, size_t{512}, size_t{1536}, size_t{1000}}) {
    const std::vector<float> v = testing::RandomUnitVectors(2, dim, 7);
    const double want = ReferenceDot(v.data(), v.data() + dim, dim);
    EXPECT_NEAR(Dot(v.data(), v.data() + dim, dim), want, 1e-6) << dim;
    EXPECT_NEAR(DotPortable(v.data(), v.data() + dim, dim), want, 1e-6) << dim;
    EXPECT_NEAR(Dot(v.data(), v.data(), dim), 1.0, 1e-6) << dim;
  }
  EXPECT_TRUE(DotKernelName() == "avx2+fma" || DotKernelName() == "portable");
}

TEST(DotTest, WorksOnUnalignedPointers) {
  const std::vector<float> v = Ramp(130, 1.0f, 1.0f);
  for (size_t offset = 0; offset < 3; ++offset) {
    const double want = ReferenceDot(v.data() + offset, v.data() + 1, 120);
    EXPECT_NEAR(Dot(v.data() + offset, v.data() + 1, 120), want, 1e-6 * want);
  }
}

TEST(DotRowsTest, EqualsDotBitForBit) {
  for (const size_t dim : {size_t{1}, size_t{7}, size_t{8}, size_t{31}, size_t{40}, size_t{64},
                           size_t{100}, size_t{512}}) {
    for (const size_t count : {size_t{0}, size_t{1}, size_t{2}, size_t{5}, size_t{16}}) {
      const std::vector<float> rows = testing::RandomUnitVectors(count + 1, dim, 11);
      const float* query = rows.data() + (count * dim);
      std::vector<float> out(count, -7.0f);
      DotRows(query, rows.data(), count, dim, out.data());
      for (size_t r = 0; r < count; ++r) {
        const float single = Dot(query, rows.data() + (r * dim), dim);
        EXPECT_EQ(std::memcmp(&out[r], &single, sizeof(float)), 0)
            << "dim " << dim << " row " << r << ": " << out[r] << " vs " << single;
      }
    }
  }
}

TEST(Int8Test, QuantizeMapsTheLargestMagnitudeToTheCodeLimitWithinHalfAStep) {
  const std::vector<float> v = {0.5f, -1.0f, 0.25f, 0.0f, 0.999f};
  std::vector<int8_t> codes(v.size());
  const float scale = QuantizeInt8(v, codes.data());
  EXPECT_FLOAT_EQ(scale, 1.0f / 127.0f);
  EXPECT_EQ(codes[1], -127);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_LE(std::fabs((static_cast<float>(codes[i]) * scale) - v[i]), (scale / 2) + 1e-7f) << i;
  }
  std::vector<int16_t> query(v.size());
  const float query_scale = QuantizeQueryCodes(v, query.data());
  EXPECT_EQ(query[1], -kQueryCodeMax);
  EXPECT_FLOAT_EQ(query_scale, 1.0f / static_cast<float>(kQueryCodeMax));

  const std::vector<float> zero(3, 0.0f);
  std::vector<int8_t> zero_codes(3, 9);
  EXPECT_EQ(QuantizeInt8(zero, zero_codes.data()), 0.0f);
  EXPECT_EQ(zero_codes, std::vector<int8_t>(3, 0));
}

TEST(Int8Test, KernelEqualsThePortableLoopForEveryTailLength) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> code(-127, 127);
  std::uniform_int_distribution<int> query_code(-kQueryCodeMax, kQueryCodeMax);
  for (size_t dim = 1; dim <= 70; ++dim) {
    const size_t count = 5;
    std::vector<int8_t> rows(count * dim);
    for (int8_t& c : rows) c = static_cast<int8_t>(code(rng));
    std::vector<int16_t> query(dim);
    for (int16_t& c : query) c = static_cast<int16_t>(query_code(rng));
    std::vector<int32_t> got(count);
    std::vector<int32_t> want(count);
    DotRowsInt8(query.data(), rows.data(), count, dim, got.data());
    DotRowsInt8Portable(query.data(), rows.data(), count, dim, want.data());
    EXPECT_EQ(got, want) << "dim " << dim;
  }
  // The extremes of both codes over the largest dimension do not overflow.
  std::vector<int8_t> row(kMaxInt8Dimension, -127);
  std::vector<int16_t> query(kMaxInt8Dimension, -kQueryCodeMax);
  int32_t sum = 0;
  DotRowsInt8(query.data(), row.data(), 1, kMaxInt8Dimension, &sum);
  EXPECT_EQ(sum, int64_t{127} * kQueryCodeMax * static_cast<int64_t>(kMaxInt8Dimension));
}

TEST(Int8Test, CodesApproximateTheDotProductOfUnitVectors) {
  const size_t dim = 512;
  const std::vector<float> v = testing::RandomUnitVectors(50, dim, 8);
  std::vector<int16_t> query(dim);
  const float query_scale = QuantizeQueryCodes(testing::Row(v, dim, 0), query.data());
  double worst = 0.0;
  for (size_t r = 1; r < 50; ++r) {
    std::vector<int8_t> codes(dim);
    const float scale = QuantizeInt8(testing::Row(v, dim, r), codes.data());
    int32_t sum = 0;
    DotRowsInt8(query.data(), codes.data(), 1, dim, &sum);
    const double approximate = static_cast<double>(sum) * scale * query_scale;
    worst =
        std::max(worst, std::fabs(approximate - ReferenceDot(v.data(), v.data() + (r * dim), dim)));
  }
  EXPECT_LT(worst, 0.005);
}

TEST(DotTest, IsSymmetric) {
  const std::vector<float> v = testing::RandomUnitVectors(2, 200, 3);
  EXPECT_EQ(Dot(v.data(), v.data() + 200, 200), Dot(v.data() + 200, v.data(), 200));
}

}  // namespace
}  // namespace engram
