#pragma once
// The settled bed of settled_bed.hpp, settled once and cached in the working directory
// (settled_bed_<law>_<N>.csv), because settling 50,000 spheres takes minutes; delete the file to
// settle again. Shared by every benchmark that starts from the settled bed.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <stdexcept>
#include <string>

#include "settled_bed.hpp"

namespace bench {

template <class Force>
dem::particle_set settled(std::size_t n) {
  const std::string cache = std::string("settled_bed_") + Force::name + "_" + std::to_string(n) + ".csv";
  if (std::filesystem::exists(cache)) return read_bed(cache);
  const dem::particle_set start = initial_bed(n);
  dem::Simulator<dem::policies<dem::shape::sphere, Force>, dem::backend::host> sim(bed_config(start));
  setup(sim, start);
  sim.advance(settle_time);
  const auto snap = sim.snapshot();
  {
    std::ofstream out(cache + ".tmp");
    out << "x,y,z,r\n" << std::setprecision(17);
    for (std::size_t i = 0; i < snap.size(); ++i)
      if (snap.active[i]) out << snap.position[i].x << ',' << snap.position[i].y << ',' << snap.position[i].z << ',' << snap.radius[i] << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + cache + ".tmp");
  }
  std::filesystem::rename(cache + ".tmp", cache);  // complete files only, even if interrupted
  return read_bed(cache);
}

}  // namespace bench
