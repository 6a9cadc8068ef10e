#pragma once
// Declarations shared by the module's translation units: the common types are bound once
// (module.cpp), each Simulator instantiation in a file of its own (generated from instantiation.cpp.in).
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "casters.hpp"
#include "dem/boundary/motion.hpp"
#include "dem/family/motion.hpp"
#include "dem/inspect/region.hpp"

namespace dem::python {

// A boundary motion given as a Python callable f(t) -> (rotation (w, x, y, z), translation,
// velocity of the point at the origin, omega) or -> dem.boundary.RigidMotion; called once per step
// on the host, with the GIL taken for the call only.
struct python_motion {
  py::function f;
  boundary::rigid_motion operator()(double t) const;
};

// change_family's predicate from Python: the particle's centre in a box (when given) and its speed
// in [min_speed, max_speed]. Trivially copyable, so it runs in the backend's kernel.
struct region_speed_predicate {
  int has_box = 0;
  vec3d lo{0, 0, 0}, hi{0, 0, 0};
  double min_speed = 0, max_speed = 1e300;
  DEM_HD bool operator()(const family::particle_state& p) const {
    if (has_box && !(p.position.x >= lo.x && p.position.y >= lo.y && p.position.z >= lo.z && p.position.x < hi.x && p.position.y < hi.y &&
                     p.position.z < hi.z))
      return false;
    const double v2 = p.velocity.x * p.velocity.x + p.velocity.y * p.velocity.y + p.velocity.z * p.velocity.z;
    return v2 >= min_speed * min_speed && v2 <= max_speed * max_speed;
  }
};

// Every Simulator class registers itself here under (shape, law, precision, backend); dem.Simulator
// (python/dem/__init__.py) picks from it.
void register_simulator(py::module_& m, const char* shape, const char* law, const char* precision, const char* backend, py::object cls);

}  // namespace dem::python
