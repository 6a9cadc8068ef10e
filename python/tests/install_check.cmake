# host.python.install: `cmake --install <build> --component python` into a staging root (DESTDIR),
# then the installed package imports from there (not from the build tree) and runs a step.
foreach(v BUILD PYTHON WORK SITE)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_check.cmake: -D${v}=... is missing")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -E env DESTDIR=${WORK} ${CMAKE_COMMAND} --install ${BUILD} --component python RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install --component python failed (${rc})")
endif()
set(code "import dem, sys
assert dem.__file__.startswith('${WORK}'), dem.__file__
sim = dem.Simulator(domain=((0, 0, 0), (0.01, 0.01, 0.01)))
m = sim.add_material(dem.Material('glass'))
sim.add_particles([(0.005, 0.005, 0.005)], 1e-3, m)
sim.step(10)
assert abs(sim.velocities()[0][2] + 9.81 * 10 * sim.dt) < 1e-6, sim.velocities()
print('installed dem imports from', dem.__file__)")
# From WORK: `python -c` puts the working directory first on sys.path, and the build tree holds a dem/ too.
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK}${SITE} ${PYTHON} -c "${code}" WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed package does not work (${rc})")
endif()
