// The narrow phase in device code: collide and collide_plane called from a __global__ kernel when this
// file is compiled as CUDA (`nvcc -x cu`), from the same functor on the host otherwise. The shape is
// built on the host and copied by value, as a device buffer of shapes will be.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "dem/shape/polyhedron/collide.hpp"
#include "dem/shape/polyhedron/polyhedron.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

using namespace dem;
using namespace dem::shape::poly;

namespace {

struct cube_probe {
  // Face-face on a cube, then the same cube resting on a plane; results into out[0..6).
  template <class Real, int M>
  DEM_HD void operator()(const convex_shape<Real, M>& s, Real* out) const {
    contact_geometry<Real> g{};
    const bool hit = collide(s, quat<Real>::identity(), s, quat<Real>::identity(), vec3<Real>{Real(0.3), Real(-0.2), Real(0.92)}, g);
    out[0] = hit ? g.overlap : Real(-1);
    out[1] = g.normal.z;
    out[2] = g.point.x;
    const bool on_plane = collide_plane(s, quat<Real>::identity(), vec3<Real>{0, 0, Real(0.49)}, vec3<Real>{0, 0, 1}, g);
    out[3] = on_plane ? g.overlap : Real(-1);
    out[4] = g.point.z;
    out[5] = static_cast<Real>(static_cast<int>(g.feature));
  }
};

#if defined(__CUDACC__)
template <class Real, int M>
__global__ void probe_kernel(convex_shape<Real, M> s, Real* out) { cube_probe{}(s, out); }
#endif

template <class Real, int M>
std::vector<Real> run_probe(const convex_shape<Real, M>& s) {
  std::vector<Real> out(6, Real(0));
#if defined(__CUDACC__)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    Real* d_out = nullptr;
    cudaMalloc(&d_out, 6 * sizeof(Real));
    probe_kernel<<<1, 1>>>(s, d_out);
    cudaMemcpy(out.data(), d_out, 6 * sizeof(Real), cudaMemcpyDeviceToHost);
    cudaFree(d_out);
    return out;
  }
#endif
  cube_probe{}(s, out.data());
  return out;
}

}  // namespace

TEST_CASE("narrow phase through a kernel functor (device when compiled as CUDA)") {
  std::vector<vec3d> pts;
  for (int i = 0; i < 8; ++i) pts.push_back({i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5});
  const auto t = make_polyhedron_template(pts, "cube");
  const auto out = run_probe(make_convex_shape<float, 32>(t));
  CHECK(std::abs(out[0] - 0.08f) < 1e-5f);
  CHECK(std::abs(out[1] - 1.0f) < 1e-6f);
  CHECK(std::abs(out[2] - 0.15f) < 1e-5f);
  CHECK(std::abs(out[3] - 0.01f) < 1e-5f);
  CHECK(std::abs(out[4] + 0.005f) < 1e-5f);
  CHECK(out[5] == static_cast<float>(static_cast<int>(contact_feature::face_face)));
}
