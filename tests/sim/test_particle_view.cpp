// The helpers that let the host compiler vectorise the pair loop must not change what is read or
// written: sim::load (float-indexed vec3 gathers, word-wise struct loads), sim::keep_or_reset
// (branch-free history reset), vec3 select and store.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "dem/dem.hpp"

namespace {

struct five_words {
  float a, b, c;
  std::uint32_t d;
  float e;
};

struct history_with_defaults {
  float angle = 0.25f;  // a history whose fresh value is not all zero bits
  dem::vec3f shear{1, 2, 3};
};

struct odd_sized {
  std::uint16_t tag;  // 2 bytes: not a whole number of words, reset through the plain branch
};

}  // namespace

TEST_CASE("sim::load reads vec3 arrays and word structs exactly as indexing does") {
  std::vector<dem::vec3f> v;
  for (int i = 0; i < 100; ++i) v.push_back({1.5f * i, -0.25f * i, 1e-7f * i + 3});
  for (std::uint32_t i : {0u, 1u, 37u, 99u}) {
    const dem::vec3f got = dem::sim::load(v.data(), i);
    CHECK(std::memcmp(&got, &v[i], sizeof got) == 0);
  }
  std::vector<dem::vec3d> vd{{1, 2, 3}, {4, 5, 6}};
  CHECK(dem::sim::load(vd.data(), 1).y == 5.0);

  std::vector<five_words> p;
  for (std::uint32_t i = 0; i < 10; ++i) p.push_back({0.5f * i, 1.0f + i, -2.0f * i, 0xdead0000u + i, 7.0f / (i + 1)});
  for (std::uint32_t i : {0u, 3u, 9u}) {
    const five_words got = dem::sim::load(p.data(), i);
    CHECK(std::memcmp(&got, &p[i], sizeof got) == 0);
  }
  std::vector<std::uint32_t> w{7, 8, 9};
  CHECK(dem::sim::load(w.data(), 2) == 9u);
}

TEST_CASE("sim::keep_or_reset keeps or restores the fresh (value-initialised) history") {
  history_with_defaults h;
  h.angle = -4.0f;
  h.shear = {9, 8, 7};
  history_with_defaults kept = h;
  dem::sim::keep_or_reset(true, kept);
  CHECK(std::memcmp(&kept, &h, sizeof h) == 0);
  history_with_defaults reset = h;
  dem::sim::keep_or_reset(false, reset);
  const history_with_defaults fresh{};
  CHECK(std::memcmp(&reset, &fresh, sizeof fresh) == 0);
  CHECK(reset.angle == 0.25f);
  CHECK(reset.shear.z == 3.0f);

  odd_sized o{42};
  dem::sim::keep_or_reset(true, o);
  CHECK(o.tag == 42);
  dem::sim::keep_or_reset(false, o);
  CHECK(o.tag == 0);
}

TEST_CASE("vec3 select and store act component by component") {
  const dem::vec3f a{1, 2, 3}, b{-1, -2, -3};
  const dem::vec3f s = dem::select(true, a, b), t = dem::select(false, a, b);
  CHECK(s.x == 1.0f);
  CHECK(s.z == 3.0f);
  CHECK(t.y == -2.0f);
  dem::vec3f dst{0, 0, 0};
  dem::store(dst, a);
  CHECK(std::memcmp(&dst, &a, sizeof a) == 0);
}
