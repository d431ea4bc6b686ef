# A run journals as it goes and resumes after a kill; --retry tells a flake from a regression
# (runner/pipeline/subject.h, report/journal.h).
#
# A run SIGKILLed once its journal holds one record and resumed with `run --resume DIR` writes the
# summary an uninterrupted run writes (digests equal), running only the four subjects with no
# record; a resume with other options or after a scenario changed is refused, exit 6
# (scripts/testing/resume-killed).
add_test(NAME Tidemark.Resume.ARunKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/resume-killed ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
# The same at --jobs 2: the kill finds two subjects under way, the journal's records in the order
# they ended.
add_test(NAME Tidemark.Resume.ARunOfTwoJobsKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/resume-killed ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} 2)
set_tests_properties(Tidemark.Resume.ARunKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun
                     Tidemark.Resume.ARunOfTwoJobsKilledHalfWayAndResumedGivesTheSummaryOfAWholeRun PROPERTIES LABELS cli)
