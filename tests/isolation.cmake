# A driver that crashes ends its subject's isolated child, not the run (runner/isolation.h): the
# layer raises SIGSEGV beneath one scenario of magma-reclaim in the monolith lane, which is a crash
# naming the signal, the child and its last step, the same step in the split lane; the other four
# run green; summary.json and junit.xml hold all five; an expectations line naming `crash` makes it
# an expected red and a run that stopped crashing an unexpected pass; with --no-isolation, the
# control, Tidemark itself dies (scripts/testing/crash-isolated).
add_test(NAME Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/crash-isolated ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Isolation.ADriverThatCrashesIsAVerdictAndTheOtherScenariosRun PROPERTIES LABELS cli)
# The layer's faults that end a driver's work are verdicts of their own in every lane, for a
# capture's replay and for observe (scripts/testing/lost-and-crashed): layer_device_lost_at=3 is
# device-lost naming the call, its count and the step in each lane; layer_crash_at_call in the spawn
# and tcp lanes a crash naming the lane's tidemark-server, its signal and the last step; an
# expectations line naming `device-lost` holds it, and goes stale when the device is not lost; a
# device lost and then a crash is still device-lost, the crash beside it; observe under each fault
# says which, and a capture's replayer that crashes is a crash; no process of any of them is left.
set(lost_and_crashed ${PROJECT_SOURCE_DIR}/scripts/testing/lost-and-crashed)
foreach(lane Monolith Split Spawn Tcp)
  string(TOLOWER ${lane} named)
  add_test(NAME Tidemark.Isolation.ALostDeviceIsItsOwnVerdictIn${lane}
           COMMAND ${lost_and_crashed} lost ${named} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  set_tests_properties(Tidemark.Isolation.ALostDeviceIsItsOwnVerdictIn${lane} PROPERTIES LABELS cli)
  if(lane STREQUAL Spawn OR lane STREQUAL Tcp)
    add_test(NAME Tidemark.Isolation.ALaneServerThatCrashesIsACrashIn${lane}
             COMMAND ${lost_and_crashed} crash ${named} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
    set_tests_properties(Tidemark.Isolation.ALaneServerThatCrashesIsACrashIn${lane} PROPERTIES LABELS cli)
  endif()
endforeach()
add_test(NAME Tidemark.Isolation.AnExpectedLostDeviceIsAnExpectedRedUntilItStops
         COMMAND ${lost_and_crashed} expected ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
add_test(NAME Tidemark.Isolation.ADeviceLostThenACrashIsDeviceLostWithTheCrashBesideIt
         COMMAND ${lost_and_crashed} lost-then-crash ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
add_test(NAME Tidemark.Isolation.ObserveSaysAProgramsDeviceWasLostOrItCrashed
         COMMAND ${lost_and_crashed} observe ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Isolation.AnExpectedLostDeviceIsAnExpectedRedUntilItStops
                     Tidemark.Isolation.ADeviceLostThenACrashIsDeviceLostWithTheCrashBesideIt
                     Tidemark.Isolation.ObserveSaysAProgramsDeviceWasLostOrItCrashed PROPERTIES LABELS cli)
if(NOT TIDEMARK_SANITIZED)  # the replayers lack the instrumented layer's runtime (capture.cmake)
  add_test(NAME Tidemark.Capture.AReplayThatCrashesIsACrash
           COMMAND ${lost_and_crashed} capture ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  set_tests_properties(Tidemark.Capture.AReplayThatCrashesIsACrash PROPERTIES LABELS "capture;cli")
endif()
