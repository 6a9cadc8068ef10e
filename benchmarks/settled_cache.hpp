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

// Writes the active particles of a snapshot as x,y,z,r to `path`, complete or not at all (a
// temporary renamed over it).
inline void write_bed(const std::string& path, const dem::io::snapshot& snap) {
  {
    std::ofstream out(path + ".tmp");
    out << "x,y,z,r\n" << std::setprecision(17);
    for (std::size_t i = 0; i < snap.size(); ++i)
      if (snap.active[i]) out << snap.position[i].x << ',' << snap.position[i].y << ',' << snap.position[i].z << ',' << snap.radius[i] << '\n';
    if (!out.flush()) throw std::runtime_error("cannot write " + path + ".tmp");
  }
  std::filesystem::rename(path + ".tmp", path);
}

template <class Force>
dem::particle_set settled(std::size_t n) {
  const std::string cache = std::string("settled_bed_") + Force::name + "_" + std::to_string(n) + ".csv";
  if (std::filesystem::exists(cache)) return read_bed(cache);
  const dem::particle_set start = initial_bed(n);
  dem::Simulator<dem::policies<dem::shape::sphere, Force>, dem::backend::host> sim(bed_config(start));
  setup(sim, start);
  sim.advance(settle_time);
  write_bed(cache, sim.snapshot());
  return read_bed(cache);
}

}  // namespace bench
