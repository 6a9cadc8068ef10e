#pragma once
// Umbrella header: everything a user program needs. Include dem/backend/cuda.hpp as well (from a
// CUDA translation unit) to use backend::cuda.
#include "dem/backend/host.hpp"
#include "dem/coord/floating.hpp"
#include "dem/force/cohesive.hpp"
#include "dem/force/compose.hpp"
#include "dem/force/hertz_mindlin.hpp"
#include "dem/force/linear_spring_dashpot.hpp"
#include "dem/integrate/integrators.hpp"
#include "dem/material/material.hpp"
#include "dem/precision/precision.hpp"
#include "dem/shape/sphere.hpp"
#include "dem/sim/policies.hpp"
#include "dem/sim/simulator.hpp"
#include "dem/sample/lattice.hpp"
#include "dem/analysis/packing.hpp"
#include "dem/inspect/inspect.hpp"
#include "dem/family/motion.hpp"
