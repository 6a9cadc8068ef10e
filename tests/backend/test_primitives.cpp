// The backend primitives (buffer, for_each, sort_pairs, exclusive_scan, reductions), written
// once against test_backend and checked against plain host computations.
#include <doctest/doctest.h>

#include <bit>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dem/backend/allocation_error.hpp"
#include "support/test_backend.hpp"

namespace primitives_test {

using backend = dem_test::test_backend;
using dem::index_t;

// Functors run in device code on the CUDA backend, hence namespace scope and DEM_HD.
struct write_pattern {
  std::uint32_t* out;
  DEM_HD void operator()(index_t i) const { out[i] = i * 3u + 7u; }
};

struct read_double {
  const double* p;
  DEM_HD double operator()(index_t i) const { return p[i]; }
};

struct half_index {
  DEM_HD float operator()(index_t i) const { return 0.5f * static_cast<float>(i); }
};
// transform_reduce's accumulator: a sum, a count and a maximum folded together.
struct sum_count_max {
  double sum, count, max;
};
struct fold_scm {
  DEM_HD sum_count_max operator()(const sum_count_max& a, const sum_count_max& b) const {
    return {a.sum + b.sum, a.count + b.count, a.max > b.max ? a.max : b.max};
  }
};
struct positives {  // the positive values: their sum, count and largest
  const double* p;
  DEM_HD sum_count_max operator()(index_t i) const {
    return p[i] > 0 ? sum_count_max{p[i], 1.0, p[i]} : sum_count_max{0.0, 0.0, -1.0e308};
  }
};
struct positives_accumulating : positives {  // the same with the host's accumulate path
  DEM_HD void accumulate(sum_count_max& a, index_t i) const { a = fold_scm{}(a, (*this)(i)); }
};


template <class Key>
std::vector<Key> random_keys(std::size_t n, Key max_key, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<Key> dist(0, max_key);
  std::vector<Key> k(n);
  for (auto& x : k) x = dist(rng);
  return k;
}

// Sorts the first n pairs on the backend and compares with std::stable_sort on the host (by the
// key's bits [0, end_bit)); entries past n must be untouched.
template <class Key>
void check_sort(const std::vector<Key>& keys, index_t n, int end_bit = 8 * sizeof(Key)) {
  const std::size_t total = keys.size();
  std::vector<std::uint32_t> values(total);
  std::iota(values.begin(), values.end(), 0u);

  std::vector<std::pair<Key, std::uint32_t>> expected(n);
  for (index_t i = 0; i < n; ++i) expected[i] = {keys[i], values[i]};
  const Key mask = end_bit >= int(8 * sizeof(Key)) ? ~Key{0} : (Key{1} << end_bit) - 1;
  std::stable_sort(expected.begin(), expected.end(), [mask](const auto& a, const auto& b) { return (a.first & mask) < (b.first & mask); });

  backend be;
  backend::buffer<Key> k;
  backend::buffer<std::uint32_t> v;
  k.assign(keys);
  v.assign(values);
  be.sort_pairs(k, v, n, end_bit);
  const std::vector<Key> ks = k.to_vector();
  const std::vector<std::uint32_t> vs = v.to_vector();
  REQUIRE(ks.size() == total);
  REQUIRE(vs.size() == total);
  for (index_t i = 0; i < n; ++i) {
    REQUIRE(ks[i] == expected[i].first);
    REQUIRE(vs[i] == expected[i].second);
  }
  for (std::size_t i = n; i < total; ++i) {
    REQUIRE(ks[i] == keys[i]);
    REQUIRE(vs[i] == values[i]);
  }
}

TEST_CASE("backend: buffer assign / copy_to round trip") {
  std::vector<std::uint32_t> src(1000);
  std::iota(src.begin(), src.end(), 5u);

  backend::buffer<std::uint32_t> b;
  CHECK(b.size() == 0);
  b.assign(src);
  CHECK(b.size() == src.size());
  CHECK(b.bytes() >= src.size() * sizeof(std::uint32_t));

  std::vector<std::uint32_t> back;
  b.copy_to(back);
  CHECK(back == src);
  CHECK(b.to_vector() == src);

  std::vector<std::uint32_t> part(10, 0u);
  b.copy_to(part.data(), part.size());
  CHECK(std::equal(part.begin(), part.end(), src.begin()));

  backend::buffer<std::uint32_t> c;
  c.assign(src.data() + 100, 50);
  const std::vector<std::uint32_t> cv = c.to_vector();
  REQUIRE(cv.size() == 50);
  CHECK(std::equal(cv.begin(), cv.end(), src.begin() + 100));

  b.swap(c);
  CHECK(b.size() == 50);
  CHECK(c.to_vector() == src);

  backend::buffer<std::uint32_t> moved(std::move(c));
  CHECK(moved.to_vector() == src);

  moved.clear();
  CHECK(moved.size() == 0);
  CHECK(moved.to_vector().empty());
}

TEST_CASE("backend: buffer resize keeps contents") {
  std::vector<double> src(300);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = 0.25 * static_cast<double>(i) - 3.0;

  backend::buffer<double> b(src.size());
  CHECK(b.size() == src.size());
  b.assign(src);

  b.resize(5000);  // growth reallocates: the old contents must come along
  std::vector<double> grown = b.to_vector();
  REQUIRE(grown.size() == 5000);
  CHECK(std::equal(src.begin(), src.end(), grown.begin()));
  CHECK(std::all_of(grown.begin() + src.size(), grown.end(), [](double x) { return x == 0.0; }));

  b.resize(100);
  const std::vector<double> shrunk = b.to_vector();
  REQUIRE(shrunk.size() == 100);
  CHECK(std::equal(shrunk.begin(), shrunk.end(), src.begin()));

  b.resize(200);  // regrow within the old allocation: the first 100 stay
  const std::vector<double> regrown = b.to_vector();
  REQUIRE(regrown.size() == 200);
  CHECK(std::equal(regrown.begin(), regrown.begin() + 100, src.begin()));
}

TEST_CASE("backend: buffer fill") {
  backend::buffer<double> d(12345);
  d.fill(2.5);
  const std::vector<double> dv = d.to_vector();
  CHECK(dv.size() == 12345);
  CHECK(std::all_of(dv.begin(), dv.end(), [](double x) { return x == 2.5; }));

  backend::buffer<std::uint64_t> u(777);
  u.fill(0x123456789abcdef0ull);
  const std::vector<std::uint64_t> uv = u.to_vector();
  CHECK(std::all_of(uv.begin(), uv.end(), [](std::uint64_t x) { return x == 0x123456789abcdef0ull; }));

  backend::buffer<std::uint32_t> empty;
  empty.fill(1u);  // no-op on an empty buffer
  CHECK(empty.size() == 0);
}

TEST_CASE("backend: for_each visits every index once") {
  backend be;
  const index_t n = 100003;  // not a multiple of any block size
  backend::buffer<std::uint32_t> out(n + 5);
  out.fill(0xffffffffu);
  be.for_each(n, write_pattern{out.data()});
  be.for_each(0, write_pattern{out.data()});  // empty range launches nothing
  be.synchronize();
  const std::vector<std::uint32_t> v = out.to_vector();
  for (index_t i = 0; i < n; ++i) REQUIRE(v[i] == i * 3u + 7u);
  for (std::size_t i = n; i < v.size(); ++i) REQUIRE(v[i] == 0xffffffffu);
  CHECK(backend::concurrency() >= 1);
}

TEST_CASE("backend: sort_pairs with 64-bit keys matches std::stable_sort") {
  // Few distinct keys: many ties, so stability is exercised.
  check_sort<std::uint64_t>(random_keys<std::uint64_t>(50000, 999, 1), 50000);
  // Full key range, high bits included.
  check_sort<std::uint64_t>(random_keys<std::uint64_t>(20000, ~std::uint64_t{0}, 2), 20000);
  // Only a prefix is sorted.
  check_sort<std::uint64_t>(random_keys<std::uint64_t>(3000, 50, 3), 1777);
}

TEST_CASE("backend: sort_pairs with 32-bit keys matches std::stable_sort") {
  check_sort<std::uint32_t>(random_keys<std::uint32_t>(40000, 63, 4), 40000);
  check_sort<std::uint32_t>(random_keys<std::uint32_t>(40000, ~std::uint32_t{0}, 5), 40000);
  check_sort<std::uint32_t>(random_keys<std::uint32_t>(10, 3, 6), 10);
  check_sort<std::uint32_t>(random_keys<std::uint32_t>(10, 3, 7), 1);
  check_sort<std::uint32_t>(random_keys<std::uint32_t>(10, 3, 8), 0);
}

TEST_CASE("backend: sort_pairs compares only the key bits below end_bit") {
  // The bits above are carried with their key and do not order it: random high bits over few
  // distinct low values give ties that only a stable sort on the low bits orders right.
  check_sort<std::uint64_t>(random_keys<std::uint64_t>(30000, ~std::uint64_t{0}, 11), 30000, 22);
  check_sort<std::uint64_t>(random_keys<std::uint64_t>(30000, ~std::uint64_t{0}, 12), 30000, 45);
  check_sort<std::uint64_t>(random_keys<std::uint64_t>(3000, ~std::uint64_t{0}, 13), 3000, 1);
  check_sort<std::uint32_t>(random_keys<std::uint32_t>(30000, ~std::uint32_t{0}, 14), 25000, 13);
  // The cell keys' case: keys below 2^b - 1 and all-ones "inactive" keys sort last on b bits.
  std::vector<std::uint64_t> cells = random_keys<std::uint64_t>(20000, 1000, 15);
  for (std::size_t i = 0; i < cells.size(); i += 7) cells[i] = ~std::uint64_t{0};
  check_sort<std::uint64_t>(cells, 20000, std::bit_width(std::uint64_t{1001}));
}

TEST_CASE("backend: sort_pairs is stable when all keys are equal") {
  const index_t n = 4096;
  backend be;
  backend::buffer<std::uint64_t> k(n);
  backend::buffer<std::uint32_t> v;
  k.fill(42);
  std::vector<std::uint32_t> values(n);
  for (index_t i = 0; i < n; ++i) values[i] = n - i;  // descending: any reordering shows
  v.assign(values);
  be.sort_pairs(k, v, n);
  CHECK(v.to_vector() == values);
}

TEST_CASE("backend: sort_pairs reuses its scratch across calls") {
  backend be;
  for (std::uint64_t round = 0; round < 3; ++round) {
    const std::vector<std::uint32_t> keys = random_keys<std::uint32_t>(5000, 200, 10 + round);
    backend::buffer<std::uint32_t> k, v;
    k.assign(keys);
    std::vector<std::uint32_t> values(keys.size());
    std::iota(values.begin(), values.end(), 0u);
    v.assign(values);
    be.sort_pairs(k, v, static_cast<index_t>(keys.size()));
    const std::vector<std::uint32_t> ks = k.to_vector();
    const std::vector<std::uint32_t> vs = v.to_vector();
    CHECK(std::is_sorted(ks.begin(), ks.end()));
    for (std::size_t i = 0; i < ks.size(); ++i) REQUIRE(keys[vs[i]] == ks[i]);
  }
}

TEST_CASE("backend: exclusive_scan") {
  backend be;
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::uint32_t> dist(0, 1000);
  std::vector<std::uint32_t> in(70001);
  for (auto& x : in) x = dist(rng);

  const index_t n = 70000;  // the last entry is outside the range and must stay
  std::vector<std::uint32_t> expected(in);
  std::uint64_t sum = 0;
  for (index_t i = 0; i < n; ++i) {
    expected[i] = static_cast<std::uint32_t>(sum);
    sum += in[i];
  }

  backend::buffer<std::uint32_t> v;
  v.assign(in);
  CHECK(be.exclusive_scan(v, n) == sum);
  CHECK(v.to_vector() == expected);

  CHECK(be.exclusive_scan(v, 0) == 0);
  CHECK(v.to_vector() == expected);

  backend::buffer<std::uint32_t> one;
  one.assign(std::vector<std::uint32_t>{9u});
  CHECK(be.exclusive_scan(one, 1) == 9);
  CHECK(one.to_vector() == std::vector<std::uint32_t>{0u});
}

TEST_CASE("backend: reduce_sum and reduce_max") {
  backend be;
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const index_t n = 123457;
  std::vector<double> x(n);
  for (auto& v : x) v = dist(rng);
  backend::buffer<double> d;
  d.assign(x);

  double sum = 0.0, max = -1.0e308;
  for (double v : x) {
    sum += v;
    max = std::max(max, v);
  }
  const double s = be.reduce_sum(n, read_double{d.data()});
  CHECK(s == doctest::Approx(sum).epsilon(1e-10));
  CHECK(be.reduce_max(n, read_double{d.data()}) == max);  // max is exact in any order
  // Same input, same bits: no thread-count or scheduling dependence.
  CHECK(be.reduce_sum(n, read_double{d.data()}) == s);

  // Non-double results are widened; sum of 0.5 i for i < 1000 is exactly 249750.
  CHECK(be.reduce_sum(1000, half_index{}) == 249750.0);
  CHECK(be.reduce_max(1000, half_index{}) == 499.5);

  // All negative: the result is the largest value, not the floor.
  std::vector<double> neg(1000);
  for (std::size_t i = 0; i < neg.size(); ++i) neg[i] = -1.0 - static_cast<double>(i);
  d.assign(neg);
  CHECK(be.reduce_max(static_cast<index_t>(neg.size()), read_double{d.data()}) == -1.0);

  CHECK(be.reduce_sum(0, half_index{}) == 0.0);
  CHECK(be.reduce_max(0, half_index{}) == -1.0e308);
}

TEST_CASE("backend: transform_reduce folds a struct of results") {
  backend be;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  const index_t n = 54321;
  std::vector<double> x(n);
  for (auto& v : x) v = dist(rng);
  backend::buffer<double> d;
  d.assign(x);
  sum_count_max want{0.0, 0.0, -1.0e308};
  for (double v : x)
    if (v > 0) want = {want.sum + v, want.count + 1, std::max(want.max, v)};
  const sum_count_max identity{0.0, 0.0, -1.0e308};
  const sum_count_max got = be.transform_reduce(n, positives{d.data()}, fold_scm{}, identity);
  CHECK(got.sum == doctest::Approx(want.sum).epsilon(1e-12));
  CHECK(got.count == want.count);
  CHECK(got.max == want.max);
  // The accumulate path (host) gives the same bits as the fold; and a second call the same bits.
  const sum_count_max again = be.transform_reduce(n, positives_accumulating{{d.data()}}, fold_scm{}, identity);
  CHECK(again.sum == got.sum);
  CHECK(again.count == got.count);
  CHECK(again.max == got.max);
  // Nothing to fold: the identity.
  const sum_count_max none = be.transform_reduce(0, positives{d.data()}, fold_scm{}, identity);
  CHECK(none.sum == 0.0);
  CHECK(none.count == 0.0);
  CHECK(none.max == -1.0e308);
}

TEST_CASE("backend: a buffer that cannot grow throws allocation_error with the size asked for") {
  backend::buffer<double> b;
  const std::size_t huge = std::size_t(1) << 61;  // 16 EiB: more than any machine holds
  try {
    b.resize(huge);
    FAIL("no allocation_error");
  } catch (const dem::allocation_error& e) {
    const std::string what = e.what();
    CHECK(what.find(std::string("dem::backend::") + backend::name + ": cannot allocate 2305843009213693952 elements of 8 bytes") !=
          std::string::npos);
    CHECK(e.bytes() == std::size_t(-1));  // 2^64 bytes overflow a size_t
  }
  CHECK(b.size() == 0);  // left as it was
  b.resize(10);
  CHECK(b.size() == 10);
}

// Device backends: memory is zeroed where a buffer grows and undefined (on the emulated device:
// poisoned, all bits set) after discard_resize, which the Simulator must never read.
TEST_CASE("backend: device memory semantics") {
  if constexpr (backend::is_device) {
    backend::buffer<std::uint32_t> b;
    b.resize(5);
    CHECK(b.to_vector() == std::vector<std::uint32_t>(5, 0));
    b.resize(2);
    b.resize(4);
    CHECK(b.to_vector() == std::vector<std::uint32_t>(4, 0));  // regrown elements are zeroed again
#if defined(DEM_TEST_BACKEND_EMULATED)
    b.discard_resize(6);
    CHECK(b.to_vector() == std::vector<std::uint32_t>(6, 0xffffffffu));
#endif
  }
}

}  // namespace primitives_test
