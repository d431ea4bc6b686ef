# A driver that crashes ends its subject's isolated child, not the run (runner/isolation.h): the
# layer raises SIGSEGV beneath one scenario of magma-reclaim in the monolith lane, which is a crash
# naming the signal, the child and its last step, the same step in the split lane; the other four
# run green; summary.json and junit.xml hold all five; an expectations line naming `crash` makes it
# an expected red and a run that stopped crashing an unexpected pass; with --no-isolation, the
# control, Tidemark itself dies (scripts/testing/crash-isolated).
add_test(NAME Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/crash-isolated ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun PROPERTIES LABELS cli)

# A driver that hangs is a timeout within its bound, and no process of the run outlives it
# (scripts/testing/hang-bounded, each command run as a subreaper by scripts/testing/no-strays): the
# layer blocks for ever beneath one scenario of magma-reclaim in the monolith lane, a timeout naming
# its inactivity limit, its last step and the layer's last Vulkan call, the next one green (7 s).
add_test(NAME Tidemark.Isolation.ADriverThatHangsIsATimeoutAndTheOtherScenariosRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hang-bounded ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} monolith)
set_tests_properties(Tidemark.Isolation.ADriverThatHangsIsATimeoutAndTheOtherScenariosRun PROPERTIES LABELS cli
                     TIMEOUT 120)
# A sanitizer slows a session's start (no call crosses the layer then): its inactivity limit is thrice.
if(TIDEMARK_SANITIZED)
  set(hang_environment HANG_INACTIVITY=15)
else()
  set(hang_environment HANG_INACTIVITY=5)
endif()
set_tests_properties(Tidemark.Isolation.ADriverThatHangsIsATimeoutAndTheOtherScenariosRun PROPERTIES
                     ENVIRONMENT ${hang_environment})
# Longer, nightly: a wall clock alone names the wall clock, an expectations line naming `timeout`
# holds, then goes stale (limits); the hang in the split, spawn and tcp lanes, its server's tree
# killed with the child (lanes); under `tidemark observe`, exit 124 (observe); beneath a capture
# fixture's replay, red-once's replay control (capture).
foreach(mode limits lanes observe capture)
  if(mode STREQUAL capture AND TIDEMARK_SANITIZED)  # as capture.cmake: the replayers lack the sanitizer runtime
    continue()
  endif()
  set(name Tidemark.Isolation.AHangIsATimeoutWithinItsBound.${mode})
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hang-bounded ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${mode})
  set_tests_properties(${name} PROPERTIES LABELS "cli;nightly" TIMEOUT 180 ENVIRONMENT ${hang_environment})
endforeach()
