# run's schedule changes no result (runner/pipeline/schedule.h): kmd, magma-wire-buffers and counters in the
# selection's order, shuffled, and two at once in two children give the same records, digests and
# order in summary.json and junit.xml (scripts/testing/run-schedule). What --skip, --include and
# --max-fails choose is a case (tests/cases/schedule).
add_test(NAME Tidemark.Schedule.ShuffledAndParallelRunsGiveTheSameRecordsInTheSameOrder
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/run-schedule ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
set_tests_properties(Tidemark.Schedule.ShuffledAndParallelRunsGiveTheSameRecordsInTheSameOrder PROPERTIES LABELS cli)
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
  # A device lost while its session opens: device-lost, not could-not-run (the layer's note: in the
  # run's child in monolith and split, in the status file of the lane's server in spawn and tcp).
  add_test(NAME Tidemark.Isolation.ADeviceLostWhileItsSessionOpensIsDeviceLostIn${lane}
           COMMAND ${lost_and_crashed} opening ${named} ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  set_tests_properties(Tidemark.Isolation.ADeviceLostWhileItsSessionOpensIsDeviceLostIn${lane} PROPERTIES LABELS cli)
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
  # The GL capture replayed by eglretrace on a lost device (Zink spins after it): the replay's
  # inactivity bound ends it, and the verdict is device-lost with the timeout beside it.
  add_test(NAME Tidemark.Capture.AReplayOnALostDeviceIsDeviceLostAndItsHangBounded
           COMMAND ${lost_and_crashed} capture-lost ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  set_tests_properties(Tidemark.Capture.AReplayOnALostDeviceIsDeviceLostAndItsHangBounded PROPERTIES
                       LABELS "capture;cli" TIMEOUT 120)
endif()

# parity, red-once and compare run their subjects isolated as run does: a driver that crashes is a
# crash verdict and the command finishes; compare with --no-isolation, the control, dies with it
# (three cases, tests/cases/isolation/a-driver-that-crashes-under-*.yaml).

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
# The layer's last call is named where the layer is beneath a server the run's child started (its
# status under TIDEMARK_LAYER_ACTIVITY, layer/tidemark_layer.h): the spawn lane's tidemark-server and
# the virgl column's virgl_test_server (monolith lane), each hung at a call (servers).
add_test(NAME Tidemark.Isolation.AHangBeneathAServerIsATimeoutNamingItsLastVulkanCall
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hang-bounded ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} servers)
# Label zink: its virgl leg runs Mesa's virpipe client in Tidemark's process, whose leaks the
# sanitizer lane leaves out with the other real GL drivers' tests.
set_tests_properties(Tidemark.Isolation.AHangBeneathAServerIsATimeoutNamingItsLastVulkanCall PROPERTIES
                     LABELS "cli;virgl;zink" TIMEOUT 120 ENVIRONMENT ${hang_environment})
# `tidemark replay` is bounded as `run` is: a recording replayed against a server that never greets
# is a timeout within its inactivity limit, then its wall clock, and the server is killed (replay).
add_test(NAME Tidemark.Isolation.AReplayThatHangsIsATimeoutWithinItsBound
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hang-bounded ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} replay)
set_tests_properties(Tidemark.Isolation.AReplayThatHangsIsATimeoutWithinItsBound PROPERTIES
                     LABELS "cli;replay" TIMEOUT 120 ENVIRONMENT ${hang_environment})
# Longer, nightly: a wall clock alone names the wall clock, an expectations line naming `timeout`
# holds, then goes stale (limits); the hang in the split, spawn and tcp lanes, its server's tree
# killed with the child, and beneath the virgl column's server in the spawn lane (lanes); under `tidemark observe`, exit 124 (observe); beneath a capture
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

# --- issue 72: bounds and progress ---
# (scripts/testing/hang-bounded) A poll answered as the one before it is no progress: a program
# that only polls work that never finishes is an inactivity timeout naming its poll, one that
# polls until its work is done finishes (progress); observe's wall clock holds while 40 clients
# wait for a renderer server that never accepts (tap); a parity of runs that all timed out is
# red, as is --against (parity).
foreach(mode progress tap parity)
  set(name Tidemark.Isolation.BoundsHoldAndOnlyProgressIsActivity.${mode})
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/hang-bounded ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${mode})
  set_tests_properties(${name} PROPERTIES LABELS "cli;layer" TIMEOUT 120 ENVIRONMENT ${hang_environment})
endforeach()
