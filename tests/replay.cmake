# Replay: a green stream replayed against the broken memo diverges at the read-back; a cut
# or foreign file is refused with the record where it breaks.
if(TIDEMARK_MUTANTS)
  add_test(NAME Tidemark.Replay.AGreenStreamDivergesAtTheReadBackUnderTheBrokenMemo
           COMMAND bash -c "set -e; $1 run $2 --record $0/aba.tdrec --report $0/aba-record; \
$3 1 'REPLAY DIVERGED .* at record #24 \\(reply to record #23 \\(read_pixels\\)\\): recorded pixel hash' \
$1 replay $0/aba.tdrec --lane spawn --mutant memo.no_destroy_epoch"
                   ${PROJECT_BINARY_DIR}/replay-divergence $<TARGET_FILE:tidemark> ${aba_fixture} ${expect_exit})
  set_tests_properties(Tidemark.Replay.AGreenStreamDivergesAtTheReadBackUnderTheBrokenMemo PROPERTIES LABELS "replay;cli")
endif()
# A replay asks for the trace's hash, not its bytes: a trace that differs (the data source
# polling where it should not) diverges at that reply, by hash, in-process and over TCP; the
# same recording replays green without the mutant.
if(TIDEMARK_MUTANTS)
  add_test(NAME Tidemark.Replay.ATraceThatDiffersDivergesAtTheTraceReplyByItsHash
           COMMAND bash -c "set -e; $1 run $2 --record $0/snapshot.tdrec --report $0/snapshot-record; \
for lane in monolith tcp; do $3 1 'REPLAY DIVERGED .* \\(reply to record #[0-9]+ \\(read_trace\\)\\): recorded trace hash [0-9a-f]{16} #[0-9]+, replayed [0-9a-f]{16} #' \
$1 replay $0/snapshot.tdrec --lane $lane --mutant gpumem.data_source_polls; done; \
$3 0 'REPLAY OK' $1 replay $0/snapshot.tdrec --lane tcp"
                   ${PROJECT_BINARY_DIR}/replay-trace-divergence $<TARGET_FILE:tidemark>
                   ${PROJECT_SOURCE_DIR}/scenarios/gpumem/a-trace-of-only-the-snapshot-shows-the-start-and-no-change.yaml
                   ${expect_exit})
  set_tests_properties(Tidemark.Replay.ATraceThatDiffersDivergesAtTheTraceReplyByItsHash PROPERTIES LABELS "replay;cli")
endif()
# A cut or foreign recording is refused, naming the record where it breaks.
add_test(NAME Tidemark.Replay.ACutOrForeignRecordingIsRefusedWhereItBreaks
         COMMAND bash -c "set -e; $1 run $2 --record $0/full.tdrec --report $0/cut-record; \
head -c 5000000 $0/full.tdrec > $0/cut.tdrec; \
$3 2 'cut.tdrec: record #[0-9]+ at byte [0-9]+: truncated buffer_data frame' $1 replay $0/cut.tdrec; \
printf garbage > $0/foreign.tdrec; \
$3 2 'expected a Tidemark recording' $1 replay $0/foreign.tdrec"
                 ${PROJECT_BINARY_DIR}/replay-cut $<TARGET_FILE:tidemark> ${budget_scenario} ${expect_exit})
set_tests_properties(Tidemark.Replay.ACutOrForeignRecordingIsRefusedWhereItBreaks PROPERTIES LABELS "replay;cli")
# A recording is a subject: run in a lane it is green when every reply is as recorded and red,
# naming the first divergence, when a mutant changes one; parity replays it in every lane with one
# digest; the recorded session cannot be changed under it.
if(TIDEMARK_MUTANTS)
  add_test(NAME Tidemark.Replay.ARecordingIsASubjectGreenAsRecordedAndRedWhereAMutantChangesAReply
           COMMAND bash -c "set -e; rm -rf $0; $1 run $2 --record $0/aba.tdrec --report $0/record; \
$3 0 '^GREEN Replay.Spawn.aba ' $1 run $0/aba.tdrec --lane spawn --report $0/green; \
$3 1 'failed replay `every reply as recorded`: record #24 \\(reply to record #23 \\(read_pixels\\)\\): recorded pixel hash' \
$1 run $0/aba.tdrec --mutant memo.no_destroy_epoch --report $0/red; \
$3 0 '1 of 1 scenarios give one digest in every lane' $1 parity $0/aba.tdrec --report $0/parity; \
$3 2 'expected a recording.s run with no knobs \\(it replays the recorded session\\), found --knob' \
$1 run $0/aba.tdrec --knob retire_lag=1 --report $0/knob"
                   ${PROJECT_BINARY_DIR}/replay-subject $<TARGET_FILE:tidemark> ${aba_fixture} ${expect_exit})
  set_tests_properties(Tidemark.Replay.ARecordingIsASubjectGreenAsRecordedAndRedWhereAMutantChangesAReply
                       PROPERTIES LABELS "replay;cli")
endif()
