# Lane failures: a server killed by a signal is a crash, named with the step and the signal; a silent one with the
# lane and the timeout; a wrong token is refused and the server serves the next session.
foreach(lane spawn tcp)
  add_test(NAME Tidemark.Lanes.${lane}.AKilledServerIsNamedWithTheStepAndTheSignal
           COMMAND ${expect_exit} 1 "crash: the ${lane} lane's tidemark-server \\(pid [0-9]+\\) killed by signal 9 \\(SIGKILL, Killed\\); its last step: .*budget.yaml:[0-9]+:[0-9]+: step buffer_data \\(i=23\\)"
                   $<TARGET_FILE:tidemark> run --lane ${lane} --kill-server-at-frame 50 ${budget_scenario}
                   --report ${PROJECT_BINARY_DIR}/reports/killed-${lane})
  add_test(NAME Tidemark.Lanes.${lane}.ASilentServerIsNamedWithTheLaneAndTheTimeout
           COMMAND ${expect_exit} 1 "error: the ${lane} server .*within 300 ms"
                   $<TARGET_FILE:tidemark> run --lane ${lane} --handshake-timeout-ms 300
                   --server-program ${PROJECT_SOURCE_DIR}/harness/wire/testdata/silent-server ${small_scenario}
                   --report ${PROJECT_BINARY_DIR}/reports/silent-${lane})
  # The server stops itself after 20 frames; the client gives up after its reply timeout.
  add_test(NAME Tidemark.Lanes.${lane}.AStoppedServerIsNamedWithTheStepAfterTheReplyTimeout
           COMMAND ${expect_exit} 1 "error: .*budget.yaml:[0-9]+:[0-9]+: step buffer_data: the ${lane} server stopped answering: no reply within 500 ms"
                   $<TARGET_FILE:tidemark> run --lane ${lane} --reply-timeout-ms 500
                   --server-program ${PROJECT_SOURCE_DIR}/harness/wire/testdata/stopping-server ${budget_scenario}
                   --report ${PROJECT_BINARY_DIR}/reports/stopped-${lane})
  set_tests_properties(Tidemark.Lanes.${lane}.AStoppedServerIsNamedWithTheStepAfterTheReplyTimeout PROPERTIES
                       ENVIRONMENT "PATH=${PROJECT_BINARY_DIR}:$ENV{PATH}")
  set_tests_properties(Tidemark.Lanes.${lane}.AKilledServerIsNamedWithTheStepAndTheSignal
                       Tidemark.Lanes.${lane}.ASilentServerIsNamedWithTheLaneAndTheTimeout
                       Tidemark.Lanes.${lane}.AStoppedServerIsNamedWithTheStepAfterTheReplyTimeout
                       PROPERTIES LABELS cli TIMEOUT 30)
endforeach()
