#pragma once
// Clumps: rigid bodies made of overlapping spheres. One include for all of it:
//   clump_template     (host) components, mass properties of the union, principal frame
//   clump_shape        (device) fixed-size, trivially copyable copy for the kernels
//   clumps::two_sphere, three_sphere, tetrahedral_four_sphere   stock templates
//   make_clump, load_clump_csv                                  loaders
// The rotational dynamics of the owners is in dem/integrate/rigid_body.hpp.
#include "dem/shape/clump/clump_shape.hpp"
#include "dem/shape/clump/clump_template.hpp"
#include "dem/shape/clump/csv.hpp"
#include "dem/shape/clump/sphere_union.hpp"
#include "dem/shape/clump/stock.hpp"
