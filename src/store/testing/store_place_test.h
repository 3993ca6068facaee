// A gtest fixture whose store lives in a StorePlace of one backend, made
// before each test (store_backends.h). Fixtures of tests that must hold on
// every backend derive from it and take the backend from their parameter.
#ifndef ENGRAM_SRC_STORE_TESTING_STORE_PLACE_TEST_H_
#define ENGRAM_SRC_STORE_TESTING_STORE_PLACE_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "src/store/testing/store_backends.h"

namespace engram::testing {

class StorePlaceTest : public ::testing::Test {
 protected:
  explicit StorePlaceTest(Backend backend) : backend_(backend) {}

  void SetUp() override {
    auto place = StorePlace::Create(backend_);
    ASSERT_TRUE(place.ok()) << place.status().ToString();
    place_ = std::move(*place);
    SetUpStore();
  }
  // What a test needs once its store's place exists.
  virtual void SetUpStore() {}

  const Backend backend_;
  std::unique_ptr<StorePlace> place_;
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_STORE_TESTING_STORE_PLACE_TEST_H_
