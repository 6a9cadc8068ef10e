// The pair-pass variants measured before the blocks were kept (docs/performance.md, "Inspectors",
// update of 2026-12-07 night: "Variants tried first"): the one-loop pass of 11283f8 (mode 3), AVX2
// hardware gathers as intrinsics (5), each pair as a 4-lane GCC vector (4), blocks with compaction
// (6, the form now in contact_summary.hpp) and without (7), with pass 1 and the whole inspector.
// Not part of the CMake build; x86 with AVX2 only. Built and run from the repository root (the
// kernel of mode 3 is today's contact_pair_summary_kernel: build it at 11283f8's include/ for the
// old loop, e.g. `git archive 11283f8 include | tar -x -C /tmp/old` and -I /tmp/old/include):
//   g++ -I benchmarks -I include -isystem /usr/include/eigen3 -O3 -march=native -fno-math-errno -ffp-contract=off
//       -fopenmp -std=gnu++20 benchmarks/inspector_variants.cpp -o /tmp/insp_exp -lbenchmark -lpthread
//   OMP_NUM_THREADS=2 /tmp/insp_exp
// (Each mode timed 15 times interleaved with a step; medians.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <immintrin.h>
#include "suite.hpp"
struct probe_tag {};
namespace dem::inspect {
typedef float v4 __attribute__((vector_size(16)));
template <class P>
struct vec_pair_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  static v4 load3(const vec3<float>& v) { v4 r = {v.x, v.y, v.z, 0.f}; return r; }
  void accumulate_range(detail::contact_accumulator& a, index_t begin, index_t end) const {
    v4 mx = {}, my = {}, mz = {}, fx = {}, fy = {}, fz = {}; float ends = 0;
    for (index_t c = begin; c < end; ++c) {
      const v4 f = load3(results.force[c]);
      const float touches = (f[0] != 0.f) | (f[1] != 0.f) | (f[2] != 0.f);
      const float w = 2.f * touches;
      const v4 l = load3(p.pos[pair_b[c]]) - load3(p.pos[pair_a[c]]);
      const v4 g = f * w * 0.5f;
      mx += l[0] * g; my += l[1] * g; mz += l[2] * g;
      const float d2 = l[0] * l[0] + l[1] * l[1] + l[2] * l[2];
      const v4 q = l * (w / (d2 + float(d2 == 0.f)));
      fx += l[0] * q; fy += l[1] * q; fz += l[2] * q;
      ends += w;
    }
    for (int k = 0; k < 3; ++k) {
      a.sum[detail::c_moment + k] += mx[k]; a.sum[detail::c_moment + 3 + k] += my[k]; a.sum[detail::c_moment + 6 + k] += mz[k];
      a.sum[detail::c_fabric + k] += fx[k]; a.sum[detail::c_fabric + 3 + k] += fy[k]; a.sum[detail::c_fabric + 6 + k] += fz[k];
    }
    a.sum[detail::c_ends] += ends;
  }
};
// 8 lanes, hardware gathers
template <class P>
struct gather_pair_kernel {
  using Real = typename P::real;
  sim::particle_view<typename P::coord_space> p;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  void accumulate_range(detail::contact_accumulator& a, index_t begin, index_t end) const {
    __m256 m[9], fb[6], ends = _mm256_setzero_ps();
    for (auto& x : m) x = _mm256_setzero_ps();
    for (auto& x : fb) x = _mm256_setzero_ps();
    const float* pos = &p.pos[0].x; const float* force = &results.force[0].x;
    const __m256i three = _mm256_set1_epi32(3);
    const __m256i lane3 = _mm256_mullo_epi32(_mm256_setr_epi32(0,1,2,3,4,5,6,7), three);
    index_t c = begin;
    for (; c + 8 <= end; c += 8) {
      const __m256i fi = _mm256_add_epi32(_mm256_set1_epi32(int(3 * c)), lane3);
      const __m256 Fx = _mm256_i32gather_ps(force, fi, 4), Fy = _mm256_i32gather_ps(force + 1, fi, 4), Fz = _mm256_i32gather_ps(force + 2, fi, 4);
      const __m256i ia = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i*)(pair_a + c)), three);
      const __m256i ib = _mm256_mullo_epi32(_mm256_loadu_si256((const __m256i*)(pair_b + c)), three);
      const __m256 lx = _mm256_sub_ps(_mm256_i32gather_ps(pos, ib, 4), _mm256_i32gather_ps(pos, ia, 4));
      const __m256 ly = _mm256_sub_ps(_mm256_i32gather_ps(pos + 1, ib, 4), _mm256_i32gather_ps(pos + 1, ia, 4));
      const __m256 lz = _mm256_sub_ps(_mm256_i32gather_ps(pos + 2, ib, 4), _mm256_i32gather_ps(pos + 2, ia, 4));
      const __m256 z = _mm256_setzero_ps();
      const __m256 nz = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(Fx, z, _CMP_NEQ_UQ), _mm256_cmp_ps(Fy, z, _CMP_NEQ_UQ)), _mm256_cmp_ps(Fz, z, _CMP_NEQ_UQ));
      const __m256 w = _mm256_and_ps(nz, _mm256_set1_ps(2.f));
      const __m256 hx = _mm256_mul_ps(lx, _mm256_and_ps(nz, _mm256_set1_ps(1.f)));
      const __m256 hy = _mm256_mul_ps(ly, _mm256_and_ps(nz, _mm256_set1_ps(1.f)));
      const __m256 hz = _mm256_mul_ps(lz, _mm256_and_ps(nz, _mm256_set1_ps(1.f)));
      const __m256 H[3] = {hx, hy, hz}, F[3] = {Fx, Fy, Fz};
      for (int r = 0; r < 3; ++r) for (int s = 0; s < 3; ++s) m[3 * r + s] = _mm256_add_ps(m[3 * r + s], _mm256_mul_ps(H[r], F[s]));
      const __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(lx, lx), _mm256_mul_ps(ly, ly)), _mm256_mul_ps(lz, lz));
      const __m256 sc = _mm256_div_ps(w, _mm256_add_ps(d2, _mm256_and_ps(_mm256_cmp_ps(d2, z, _CMP_EQ_OQ), _mm256_set1_ps(1.f))));
      const __m256 qx = _mm256_mul_ps(lx, sc), qy = _mm256_mul_ps(ly, sc);
      fb[0] = _mm256_add_ps(fb[0], _mm256_mul_ps(lx, qx)); fb[1] = _mm256_add_ps(fb[1], _mm256_mul_ps(ly, qx));
      fb[2] = _mm256_add_ps(fb[2], _mm256_mul_ps(lz, qx)); fb[3] = _mm256_add_ps(fb[3], _mm256_mul_ps(ly, qy));
      fb[4] = _mm256_add_ps(fb[4], _mm256_mul_ps(lz, qy)); fb[5] = _mm256_add_ps(fb[5], _mm256_mul_ps(lz, _mm256_mul_ps(lz, sc)));
      ends = _mm256_add_ps(ends, w);
    }
    auto hs = [](__m256 v) { float t[8]; _mm256_storeu_ps(t, v); double s = 0; for (float x : t) s += x; return s; };
    for (int k = 0; k < 9; ++k) a.sum[detail::c_moment + k] += hs(m[k]);
    const int full[9] = {0, 1, 2, 1, 3, 4, 2, 4, 5};
    for (int k = 0; k < 9; ++k) a.sum[detail::c_fabric + k] += hs(fb[full[k]]);
    a.sum[detail::c_ends] += hs(ends);
    // tail scalar
    for (; c < end; ++c) {
      const vec3<float> f = results.force[c];
      if (!sim::is_touching(f)) continue;
      const vec3<float> l = p.pos[pair_b[c]] - p.pos[pair_a[c]];
      for (int r = 0; r < 3; ++r) for (int s = 0; s < 3; ++s) a.sum[detail::c_moment + 3 * r + s] += l[r] * f[s];
      const double d2 = l.x * l.x + l.y * l.y + l.z * l.z;
      for (int r = 0; r < 3; ++r) for (int s = 0; s < 3; ++s) a.sum[detail::c_fabric + 3 * r + s] += 2 * l[r] * l[s] / d2;
      a.sum[detail::c_ends] += 2;
    }
  }
};
template <class P>
struct hist_only_kernel {
  const std::uint8_t* touching_count;
  void accumulate(detail::contact_accumulator& a, index_t i) const {
    const int n = touching_count[i];
    a.sum[detail::c_particles] += 1.0;
    a.sum[detail::c_histogram + (n < contact_summary::bins - 1 ? n : contact_summary::bins - 1)] += 1.0;
  }
  detail::contact_accumulator operator()(index_t i) const { auto a = detail::contact_accumulator::identity(); accumulate(a, i); return a; }
};

// two stages per block: scalar gather + compaction of touching pairs into SoA, then a contiguous simd loop
template <class P, int W = 0>
struct block_pair_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  void accumulate_range(detail::contact_accumulator& a, index_t begin, index_t end) const {
    using T = Real;
    constexpr int B = 256;
    alignas(64) T lx[B], ly[B], lz[B], fx[B], fy[B], fz[B];
    for (index_t c0 = begin; c0 < end; c0 += B) {
      const index_t c1 = std::min<index_t>(end, c0 + B);
      int n = 0;
      for (index_t c = c0; c < c1; ++c) {
        const vec3<T> f = results.force[c];
        const vec3<T> d = Space::difference(coord, p.pos[pair_b[c]], p.pos[pair_a[c]]);
        lx[n] = d.x, ly[n] = d.y, lz[n] = d.z, fx[n] = f.x, fy[n] = f.y, fz[n] = f.z;
        n += int(sim::is_touching(f));
      }
      T m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0, q4 = 0, q5 = 0;
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, q0, q1, q2, q3, q4, q5)
      for (int k = 0; k < n; ++k) {
        const T x = lx[k], y = ly[k], z = lz[k], Fx = fx[k], Fy = fy[k], Fz = fz[k];
        m0 += x * Fx, m1 += x * Fy, m2 += x * Fz, m3 += y * Fx, m4 += y * Fy, m5 += y * Fz, m6 += z * Fx, m7 += z * Fy, m8 += z * Fz;
        const T d2 = x * x + y * y + z * z;
        const T s = T(1) / (d2 + T(d2 == T(0)));
        q0 += x * x * s, q1 += x * y * s, q2 += x * z * s, q3 += y * y * s, q4 += y * z * s, q5 += z * z * s;
      }
      const double m[9] = {m0, m1, m2, m3, m4, m5, m6, m7, m8}, q[9] = {q0, q1, q2, q1, q3, q4, q2, q4, q5};
      for (int k = 0; k < 9; ++k) a.sum[detail::c_moment + k] += m[k], a.sum[detail::c_fabric + k] += 2 * q[k];
      a.sum[detail::c_ends] += 2 * n;
    }
  }
};

// two stages per block, no compaction: stage 1 gathers the branch vectors; stage 2 reads the forces in place
template <class P>
struct block2_pair_kernel {
  using Space = typename P::coord_space;
  using Real = typename P::real;
  sim::particle_view<Space> p;
  typename Space::params coord;
  const std::uint32_t* pair_a;
  const std::uint32_t* pair_b;
  sim::contact_results<Real> results;
  void accumulate_range(detail::contact_accumulator& a, index_t begin, index_t end) const {
    using T = Real;
    constexpr int B = 256;
    alignas(64) T lx[B], ly[B], lz[B];
    for (index_t c0 = begin; c0 < end; c0 += B) {
      const int n = int(std::min<index_t>(end, c0 + B) - c0);
      for (int k = 0; k < n; ++k) {
        const vec3<T> d = Space::difference(coord, p.pos[pair_b[c0 + k]], p.pos[pair_a[c0 + k]]);
        lx[k] = d.x, ly[k] = d.y, lz[k] = d.z;
      }
      const vec3<T>* force = results.force + c0;
      T m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0, q4 = 0, q5 = 0, e = 0;
#pragma omp simd reduction(+ : m0, m1, m2, m3, m4, m5, m6, m7, m8, q0, q1, q2, q3, q4, q5, e)
      for (int k = 0; k < n; ++k) {
        const T Fx = force[k].x, Fy = force[k].y, Fz = force[k].z;
        const T w = (Fx != T(0)) | (Fy != T(0)) | (Fz != T(0));
        const T x = lx[k], y = ly[k], z = lz[k];
        m0 += x * Fx, m1 += x * Fy, m2 += x * Fz, m3 += y * Fx, m4 += y * Fy, m5 += y * Fz, m6 += z * Fx, m7 += z * Fy, m8 += z * Fz;
        const T d2 = x * x + y * y + z * z;
        const T s = w / (d2 + T(d2 == T(0)));
        q0 += x * x * s, q1 += x * y * s, q2 += x * z * s, q3 += y * y * s, q4 += y * z * s, q5 += z * z * s;
        e += w;
      }
      const double m[9] = {m0, m1, m2, m3, m4, m5, m6, m7, m8}, q[9] = {q0, q1, q2, q1, q3, q4, q2, q4, q5};
      for (int k = 0; k < 9; ++k) a.sum[detail::c_moment + k] += m[k], a.sum[detail::c_fabric + k] += 2 * q[k];
      a.sum[detail::c_ends] += 2 * e;
    }
  }
};
template <>
struct access<probe_tag> {
  template <class Sim>
  static double run(Sim& s, int mode, const box& region) {
    using P = typename Sim::policy;
    using R = box;
    detail::contact_accumulator a = detail::contact_accumulator::identity();
    if (!s.count_touching_) s.count_touching();
    const auto identity = detail::contact_accumulator::identity();
    if (mode == 0) return inspect::contacts(s, region).force_moment[0];
    if (mode == 1) {
      typename Sim::template buffer<std::uint32_t> fresh(s.num_particles_);
      a = s.backend_.transform_reduce(s.num_particles_, detail::contact_selection_kernel<P, R, any_particle>{s.view(), s.coord_, s.touching_count_.data(), fresh.data(), region, {}}, detail::fold_contacts{}, a);
      return a.sum[detail::c_particles];
    }
    if (mode == 2) {
      a = s.backend_.transform_reduce(s.num_particles_, hist_only_kernel<P>{s.touching_count_.data()}, detail::fold_contacts{}, a);
      return a.sum[detail::c_particles];
    }
    if (mode == 3) {
      detail::contact_pair_summary_kernel<P> pk{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results(), nullptr};
      a = s.backend_.transform_reduce(s.num_contacts_, pk, detail::fold_contacts{}, identity);
    }
    if (mode == 4) a = s.backend_.transform_reduce(s.num_contacts_, vec_pair_kernel<P>{s.view(), s.pair_a_.data(), s.pair_b_.data(), s.results()}, detail::fold_contacts{}, identity);
    if (mode == 6) a = s.backend_.transform_reduce(s.num_contacts_, block_pair_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results()}, detail::fold_contacts{}, identity);
    if (mode == 7) a = s.backend_.transform_reduce(s.num_contacts_, block2_pair_kernel<P>{s.view(), s.coord_, s.pair_a_.data(), s.pair_b_.data(), s.results()}, detail::fold_contacts{}, identity);
    if (mode == 5) a = s.backend_.transform_reduce(s.num_contacts_, gather_pair_kernel<P>{s.view(), s.pair_a_.data(), s.pair_b_.data(), s.results()}, detail::fold_contacts{}, identity);
    return a.sum[detail::c_moment] + 1e-9 * a.sum[detail::c_fabric + 4] + a.sum[detail::c_ends];
  }
};
}  // namespace dem::inspect
int main(int argc, char** argv) {
  using Sim = bench::suite::simulator<dem::backend::host, dem::force::hertz_mindlin>;
  const std::size_t n = argc > 1 ? std::atol(argv[1]) : 1000000;
  auto b = bench::suite::make_tiled_bed<dem::force::hertz_mindlin>(n);
  Sim sim(bench::suite::config_for(b.domain));
  sim.set_log(nullptr);
  bench::setup(sim, b.set);
  sim.step(300);
  const auto all = dem::inspect::particles(sim);
  const dem::vec3d lo = all.extent_lo, hi = all.extent_hi, e = hi - lo;
  const dem::inspect::box whole{lo - e * 0.01, hi + e * 0.01};
  using A = dem::inspect::access<probe_tag>;
  const char* names[] = {"inspect::contacts whole", "pass 1 (flags)", "pass 1 hist only", "pair pass current", "pair pass v4 AoS", "pair pass avx2 gathers", "pair pass blocks", "pair pass blocks, no compaction", "step"};
  const int M = 9;
  std::vector<std::vector<double>> t(M);
  double check[M] = {};
  for (int rep = 0; rep < 15; ++rep)
    for (int m = 0; m < M; ++m) {
      const auto t0 = std::chrono::steady_clock::now();
      if (m < 8) check[m] = A::run(sim, m, whole); else sim.step(1);
      t[m].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e3);
    }
  for (int m = 0; m < M; ++m) {
    auto v = t[m]; std::sort(v.begin(), v.end());
    std::printf("%-28s median %7.2f ms  min %7.2f ms  check %.9g\n", names[m], v[v.size() / 2], v[0], check[m]);
  }
}
