#pragma once
// Conversions between dem's small value types and Python: a vec3d is any sequence of three numbers
// (a tuple, a list, a NumPy array) and comes back as a tuple; a quatd is (w, x, y, z); an aabb is
// a pair of points (lo, hi); a list of points (std::vector<vec3d>) is an (n, 3) float64 NumPy array
// both ways (any (n, 3) array-like is accepted).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dem/math/aabb.hpp"
#include "dem/math/quaternion.hpp"
#include "dem/math/vec3.hpp"

namespace dem::python {

namespace py = pybind11;

// Reads n numbers from a Python sequence; false (no error) if it is not one of that length.
inline bool load_numbers(py::handle src, double* out, std::size_t n) {
  if (!src || py::isinstance<py::str>(src) || !py::isinstance<py::sequence>(src)) {
    if (!src || !py::hasattr(src, "__len__") || !py::hasattr(src, "__getitem__")) return false;  // NumPy arrays are sequences too
  }
  try {
    const py::sequence s = py::reinterpret_borrow<py::sequence>(src);
    if (py::len(s) != n) return false;
    for (std::size_t k = 0; k < n; ++k) out[k] = py::cast<double>(s[k]);
  } catch (const py::error_already_set&) {
    return false;
  } catch (const py::cast_error&) {
    return false;
  }
  return true;
}

// A 1-d NumPy array of the values (a copy).
template <class T>
py::array_t<T> array_of(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// (n, 3) float64 array of the points (a copy).
inline py::array_t<double> points_array(const std::vector<vec3d>& v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t{3}});
  auto m = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    m(i, 0) = v[i].x;
    m(i, 1) = v[i].y;
    m(i, 2) = v[i].z;
  }
  return a;
}

// Points from an (n, 3) array-like; throws ValueError naming `what` for any other shape.
inline std::vector<vec3d> points_from(py::handle src, const char* what) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(src);
  if (!a) throw py::value_error(std::string("dem: ") + what + " must be an (n, 3) array of numbers");
  if (a.ndim() == 1 && a.shape(0) == 0) return {};
  if (a.ndim() != 2 || a.shape(1) != 3)
    throw py::value_error(std::string("dem: ") + what + " must be an (n, 3) array, not one of shape " +
                          py::str(py::tuple(py::cast(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim())))).cast<std::string>());
  const auto r = a.unchecked<2>();
  std::vector<vec3d> v(static_cast<std::size_t>(a.shape(0)));
  for (py::ssize_t i = 0; i < a.shape(0); ++i) v[i] = {r(i, 0), r(i, 1), r(i, 2)};
  return v;
}

}  // namespace dem::python

namespace pybind11::detail {

template <>
struct type_caster<dem::vec3d> {
  PYBIND11_TYPE_CASTER(dem::vec3d, const_name("tuple[float, float, float]"));
  bool load(handle src, bool) {
    double v[3];
    if (!dem::python::load_numbers(src, v, 3)) return false;
    value = {v[0], v[1], v[2]};
    return true;
  }
  static handle cast(const dem::vec3d& v, return_value_policy, handle) { return make_tuple(v.x, v.y, v.z).release(); }
};

template <>
struct type_caster<dem::quatd> {
  PYBIND11_TYPE_CASTER(dem::quatd, const_name("tuple[float, float, float, float]"));
  bool load(handle src, bool) {
    double v[4];
    if (!dem::python::load_numbers(src, v, 4)) return false;
    value = {v[0], v[1], v[2], v[3]};
    return true;
  }
  static handle cast(const dem::quatd& q, return_value_policy, handle) { return make_tuple(q.w, q.x, q.y, q.z).release(); }
};

template <>
struct type_caster<dem::aabb> {
  PYBIND11_TYPE_CASTER(dem::aabb, const_name("tuple[tuple[float, float, float], tuple[float, float, float]]"));
  bool load(handle src, bool convert) {
    if (!src || !isinstance<sequence>(src) || isinstance<str>(src) || len(src) != 2) return false;
    const sequence s = reinterpret_borrow<sequence>(src);
    make_caster<dem::vec3d> lo, hi;
    if (!lo.load(s[0], convert) || !hi.load(s[1], convert)) return false;
    value = {cast_op<dem::vec3d>(lo), cast_op<dem::vec3d>(hi)};
    return true;
  }
  static handle cast(const dem::aabb& b, return_value_policy p, handle h) {
    return make_tuple(reinterpret_steal<object>(make_caster<dem::vec3d>::cast(b.lo, p, h)),
                      reinterpret_steal<object>(make_caster<dem::vec3d>::cast(b.hi, p, h)))
        .release();
  }
};

template <>
struct type_caster<std::vector<dem::vec3d>> {
  PYBIND11_TYPE_CASTER(std::vector<dem::vec3d>, const_name("numpy.ndarray[float64, (n, 3)]"));
  bool load(handle src, bool) {
    if (!src || isinstance<str>(src)) return false;
    try {
      value = dem::python::points_from(src, "points");
    } catch (const error_already_set&) {
      return false;  // not array-like: another overload may take it
    }  // array-like of another shape: ValueError, naming the shape
    return true;
  }
  static handle cast(const std::vector<dem::vec3d>& v, return_value_policy, handle) { return dem::python::points_array(v).release(); }
};

template <>
struct type_caster<std::vector<dem::quatd>> {
  PYBIND11_TYPE_CASTER(std::vector<dem::quatd>, const_name("numpy.ndarray[float64, (n, 4)]"));
  bool load(handle src, bool) {
    if (!src || isinstance<str>(src)) return false;
    const auto a = array_t<double, array::c_style | array::forcecast>::ensure(src);
    if (!a) return false;
    if (a.ndim() == 1 && a.shape(0) == 0) { value.clear(); return true; }
    if (a.ndim() != 2 || a.shape(1) != 4) return false;
    const auto r = a.unchecked<2>();
    value.resize(static_cast<std::size_t>(a.shape(0)));
    for (ssize_t i = 0; i < a.shape(0); ++i) value[i] = {r(i, 0), r(i, 1), r(i, 2), r(i, 3)};
    return true;
  }
  static handle cast(const std::vector<dem::quatd>& v, return_value_policy, handle) {
    array_t<double> a({static_cast<ssize_t>(v.size()), ssize_t{4}});
    auto m = a.mutable_unchecked<2>();
    for (std::size_t i = 0; i < v.size(); ++i) {
      m(i, 0) = v[i].w;
      m(i, 1) = v[i].x;
      m(i, 2) = v[i].y;
      m(i, 3) = v[i].z;
    }
    return a.release();
  }
};

}  // namespace pybind11::detail
