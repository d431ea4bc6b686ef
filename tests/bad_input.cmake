# Bad input (exit 2, one line naming the file, line and column or the flag): malformed scenario
# files, flags and workloads that ask for the impossible; nothing runs.
set(bad_scenarios ${PROJECT_SOURCE_DIR}/harness/scenario/testdata/bad)
file(GLOB bad_files CONFIGURE_DEPENDS ${bad_scenarios}/*.yaml)
# Each bad case states its message on its first line (`# error: LINE:COL: expected ...`): the
# command line must print exactly that, after the file's path.
foreach(bad ${bad_files})
  get_filename_component(stem ${bad} NAME_WE)
  file(STRINGS ${bad} first_line LIMIT_COUNT 1)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${bad})  # a changed first line re-registers
  string(REGEX REPLACE "^# error: " "" message "${first_line}")
  set(bad_test Tidemark.BadInput.${stem}.IsRefusedWithTheErrorItsFirstLineStates)
  add_test(NAME ${bad_test}
           COMMAND ${expect_exit} 2 "tidemark: ${bad}:${message}"
                   $<TARGET_FILE:tidemark> run ${bad} --report ${PROJECT_BINARY_DIR}/reports/bad-input)
  set_tests_properties(${bad_test} PROPERTIES LABELS cli ENVIRONMENT EXPECT_FIXED=1)
endforeach()

# One bad file among good ones: nothing runs.
add_test(NAME Tidemark.BadInput.NothingRunsOnAHalfValidSet
         COMMAND ${expect_exit} 2 "^tidemark: .*bad_size\\.yaml:[0-9]+:[0-9]+: "
                 $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios ${bad_scenarios}/bad_size.yaml
                 --report ${PROJECT_BINARY_DIR}/reports/half-valid)
add_test(NAME Tidemark.BadInput.AnOverrideOfAnUnknownKnobNamesTheKnob
         COMMAND ${expect_exit} 2 "^tidemark: --knob: unknown knob 'wire_deferred_gb'$"
                 $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios --knob wire_deferred_gb=1)
add_test(NAME Tidemark.BadInput.AnOverrideOutOfRangeNamesTheKnobsRange
         COMMAND ${expect_exit} 2 "^tidemark: --knob: expected wire_deferred_mb in 0..65536, found 70000$"
                 $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios --knob wire_deferred_mb=70000)
# The session's choices are looked up once, by the library (a subject's prepare) or the option's parser.
add_test(NAME Tidemark.BadInput.AnUnknownBackendNamesTheBackends
         COMMAND ${expect_exit} 2 "^tidemark: --backend: expected a backend \\(.*vulkan.*\\), found 'nope'$"
                 $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios --backend nope)
add_test(NAME Tidemark.BadInput.AnUnknownMutantNamesTheCatalogue
         COMMAND ${expect_exit} 2 "^tidemark: --mutant: expected one of \\(.*\\), found 'nope'$"
                 $<TARGET_FILE:tidemark> run ${PROJECT_SOURCE_DIR}/scenarios --mutant nope)
set_tests_properties(Tidemark.BadInput.NothingRunsOnAHalfValidSet Tidemark.BadInput.AnUnknownBackendNamesTheBackends
                     Tidemark.BadInput.AnUnknownMutantNamesTheCatalogue PROPERTIES
                     ENVIRONMENT "EXPECT_ABSENT=GREEN|RED")
set_tests_properties(Tidemark.BadInput.NothingRunsOnAHalfValidSet Tidemark.BadInput.AnOverrideOfAnUnknownKnobNamesTheKnob
                     Tidemark.BadInput.AnOverrideOutOfRangeNamesTheKnobsRange Tidemark.BadInput.AnUnknownBackendNamesTheBackends
                     Tidemark.BadInput.AnUnknownMutantNamesTheCatalogue PROPERTIES LABELS cli)

# Fault injection asks for a server of the run's own and a frame the session reaches.
foreach(lane spawn tcp)
  add_test(NAME Tidemark.BadInput.${lane}.AKillPastTheLastFrameIsBadInput
           COMMAND ${expect_exit} 2 "^tidemark: --kill-server-at-frame 100000: expected a frame number the session reaches, found one past its last"
                   $<TARGET_FILE:tidemark> run --lane ${lane} --kill-server-at-frame 100000 ${small_scenario}
                   --report ${PROJECT_BINARY_DIR}/reports/kill-past-${lane})
  set_tests_properties(Tidemark.BadInput.${lane}.AKillPastTheLastFrameIsBadInput PROPERTIES LABELS cli TIMEOUT 30)
endforeach()
add_test(NAME Tidemark.BadInput.AKillWithoutAServerOfTheRunsOwnIsBadInput
         COMMAND ${expect_exit} 2 "^tidemark: --kill-server-at-frame: expected --lane spawn or tcp with a server of this run's own, found --lane split$"
                 $<TARGET_FILE:tidemark> run --lane split --kill-server-at-frame 5 ${small_scenario})
add_test(NAME Tidemark.BadInput.ARecordFolderThatCannotBeCreatedIsAnIoError
         COMMAND ${expect_exit} 4 "^tidemark: cannot create /proc/tidemark/"
                 $<TARGET_FILE:tidemark> run --record /proc/tidemark ${small_scenario} --report ${PROJECT_BINARY_DIR}/reports/record-proc)
set_tests_properties(Tidemark.BadInput.AKillWithoutAServerOfTheRunsOwnIsBadInput
                     Tidemark.BadInput.ARecordFolderThatCannotBeCreatedIsAnIoError PROPERTIES LABELS cli)

# A workload that asks for the impossible is bad input (exit 2, naming the step), in every lane.
foreach(lane monolith spawn)
  add_test(NAME Tidemark.BadInput.${lane}.ADrawOfABufferWithoutAStoreNamesTheStep
           COMMAND ${expect_exit} 2 "^tidemark: .*draw-of-a-buffer-without-a-store.yaml:8:5: step draw: draw: uniform buffer 1 has no store"
                   $<TARGET_FILE:tidemark> run --lane ${lane} ${testdata}/draw-of-a-buffer-without-a-store.yaml
                   --report ${PROJECT_BINARY_DIR}/reports/impossible-${lane})
  set_tests_properties(Tidemark.BadInput.${lane}.ADrawOfABufferWithoutAStoreNamesTheStep PROPERTIES LABELS cli)
endforeach()
# The same for a failure pipelined behind others: it comes back later, and still names its step.
foreach(lane monolith split spawn tcp)
  add_test(NAME Tidemark.BadInput.${lane}.AFailureDeepInThePipeNamesItsStep
           COMMAND ${expect_exit} 2 "^tidemark: .*a-failure-deep-in-the-pipe-names-its-step.yaml:13:9: step draw \\(i=23\\): draw: uniform buffer 1 has no store"
                   $<TARGET_FILE:tidemark> run --lane ${lane} ${testdata}/a-failure-deep-in-the-pipe-names-its-step.yaml
                   --report ${PROJECT_BINARY_DIR}/reports/deep-failure-${lane})
  set_tests_properties(Tidemark.BadInput.${lane}.AFailureDeepInThePipeNamesItsStep PROPERTIES LABELS cli)
endforeach()

# A command that does not exist is named as such, with the nearest one when it is close, also
# when --help follows it (CLI11 alone answers "A subcommand is required", or prints the help, exit 0).
add_test(NAME Tidemark.BadInput.AMistypedCommandIsNamedWithTheNearestCommand
         COMMAND ${expect_exit} 2 "^tidemark: no command 'replya'; did you mean 'replay'\\?$"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml replya --help)
add_test(NAME Tidemark.BadInput.AnUnknownCommandListsTheCommands
         COMMAND ${expect_exit} 2 "^tidemark: no command 'frobnicate'; the commands are run, replay, "
                 $<TARGET_FILE:tidemark> frobnicate --help)
set_tests_properties(Tidemark.BadInput.AMistypedCommandIsNamedWithTheNearestCommand
                     Tidemark.BadInput.AnUnknownCommandListsTheCommands PROPERTIES LABELS cli)
