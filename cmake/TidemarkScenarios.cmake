# tidemark_add_scenarios(DIRS <folder>... [LANES <lane>...] [BACKENDS <backend>...]
#                        [LEDGER <file>] [EXPECTATIONS <file>] [DIGESTS <file>] [LABELS <label>...]
#                        [PARITY] [NAME <set>] [REPORT_ROOT <folder>])
#
# Registers every scenario under DIRS as CTest tests, with the names and labels Tidemark's own
# suite uses: Magma.<Lane>.<Group>.<name>[@backend], labelled integration-magma-<group>,
# integration-magma-<lane> and backend-<backend>.
#   LANES        monolith, split, spawn, tcp (default: all four)
#   BACKENDS     run each scenario on these in place of the backends it lists
#   EXPECTATIONS known failures the runs are judged against (an expectations.txt)
#   DIGESTS      committed digests (parity --save-digests) every run is held to: another digest fails
#   LEDGER       also a RedOnce.<Group>.<name> test per scenario: its controls go red, as the ledger says
#   LABELS       more labels for every test
#   PARITY       also one test that every scenario gives one digest in every lane (Tidemark.Parity.<NAME>)
#   NAME         the set's name in that test (default: the first folder's name)
#   REPORT_ROOT  where the tests' reports go (default: <build>/tidemark-reports)
# Relative paths are relative to the calling CMakeLists.txt's folder.
#
# The scenarios are read when ctest starts, not at configure: a new YAML file is a new test with
# no re-configure, and a scenario set that does not load is one failing test
# (Tidemark.ScenarioSet.<NAME>.Loads), never fewer tests. It needs the executable targets
# Tidemark::tidemark (find_package(Tidemark) makes it; Tidemark's own build aliases its own).
function(tidemark_add_scenarios)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "PARITY" "LEDGER;EXPECTATIONS;DIGESTS;NAME;REPORT_ROOT" "DIRS;LANES;BACKENDS;LABELS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tidemark_add_scenarios: expected DIRS, LANES, BACKENDS, LEDGER, EXPECTATIONS, DIGESTS, LABELS, "
                        "PARITY, NAME or REPORT_ROOT, found '${ARG_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT ARG_DIRS)
    message(FATAL_ERROR "tidemark_add_scenarios: expected DIRS <scenario folders>, found none")
  endif()
  if(NOT TARGET Tidemark::tidemark)
    message(FATAL_ERROR "tidemark_add_scenarios: expected the target Tidemark::tidemark (find_package(Tidemark)), found none")
  endif()
  set(dirs "")
  foreach(dir IN LISTS ARG_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND dirs "${dir}")
  endforeach()
  list(GET dirs 0 first)
  get_filename_component(set_name "${first}" NAME)
  if(ARG_NAME)
    set(set_name "${ARG_NAME}")
  endif()
  if(NOT set_name MATCHES "^[A-Za-z0-9_.-]+$")
    message(FATAL_ERROR "tidemark_add_scenarios: NAME: expected letters, digits, '_', '.' or '-', found '${set_name}'")
  endif()
  set(report_root "${CMAKE_CURRENT_BINARY_DIR}/tidemark-reports")
  if(ARG_REPORT_ROOT)
    get_filename_component(report_root "${ARG_REPORT_ROOT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()

  # The command ctest runs at start: `tidemark list` writes the registrations of the set.
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/tidemark-scenarios-${set_name}.generated.cmake")
  set(command "[==[$<TARGET_FILE:Tidemark::tidemark>]==] list")
  foreach(dir IN LISTS dirs)
    string(APPEND command " [==[${dir}]==]")
  endforeach()
  string(APPEND command " --ctest-file [==[${generated}]==] --tidemark [==[$<TARGET_FILE:Tidemark::tidemark>]==]"
                        " --report-root [==[${report_root}]==]")
  foreach(lane IN LISTS ARG_LANES)
    string(APPEND command " --lane [==[${lane}]==]")
  endforeach()
  foreach(backend IN LISTS ARG_BACKENDS)
    string(APPEND command " --backend [==[${backend}]==]")
  endforeach()
  foreach(label IN LISTS ARG_LABELS)
    string(APPEND command " --label [==[${label}]==]")
  endforeach()
  foreach(file IN ITEMS LEDGER EXPECTATIONS DIGESTS)
    if(ARG_${file})
      get_filename_component(path "${ARG_${file}}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      string(TOLOWER "${file}" option)
      string(APPEND command " --${option} [==[${path}]==]")
    endif()
  endforeach()

  # When the set does not load its groups are read from the files' `group:` lines as text, so
  # that the failing test is in the label a user runs (integration-magma-<group>) and in every lane's.
  set(set_labels tidemark-scenario-set ${ARG_LABELS})
  foreach(lane IN ITEMS monolith split spawn tcp)
    list(APPEND set_labels integration-magma-${lane})
  endforeach()
  set(dirs_bracketed "")
  foreach(dir IN LISTS dirs)
    string(APPEND dirs_bracketed " [==[${dir}]==]")
  endforeach()
  set(registrations "${CMAKE_CURRENT_BINARY_DIR}/tidemark-scenarios-${set_name}.cmake")
  file(WRITE "${registrations}.in" "
execute_process(COMMAND ${command} RESULT_VARIABLE listed ERROR_VARIABLE list_error)
if(listed EQUAL 0)
  include([==[${generated}]==])
else()
  # A broken scenario set shows as a failing test, not as fewer tests.
  set(labels [==[${set_labels}]==])
  foreach(dir IN ITEMS ${dirs_bracketed})
    file(GLOB_RECURSE files \"\${dir}/*.yaml\")
    foreach(file IN LISTS files)
      file(STRINGS \"\${file}\" lines REGEX \"^group:[ ]*[a-z0-9-]+[ ]*(#.*)?$\")
      foreach(line IN LISTS lines)
        string(REGEX REPLACE \"^group:[ ]*([a-z0-9-]+).*\" \"integration-magma-\\\\1\" label \"\${line}\")
        list(APPEND labels \"\${label}\")
      endforeach()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES labels)
  add_test(Tidemark.ScenarioSet.${set_name}.Loads [==[${CMAKE_COMMAND}]==] -E echo \"\${list_error}\")
  set_tests_properties(Tidemark.ScenarioSet.${set_name}.Loads PROPERTIES WILL_FAIL TRUE LABELS \"\${labels}\")
endif()
")
  file(GENERATE OUTPUT "${registrations}" INPUT "${registrations}.in")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${registrations}")

  if(ARG_PARITY)
    add_test(NAME Tidemark.Parity.${set_name} COMMAND $<TARGET_FILE:Tidemark::tidemark> parity ${dirs} --report "${report_root}/parity-${set_name}")
    set_tests_properties(Tidemark.Parity.${set_name} PROPERTIES LABELS "parity;tidemark-scenario-set")
    if(ARG_LABELS)
      set_property(TEST Tidemark.Parity.${set_name} APPEND PROPERTY LABELS ${ARG_LABELS})
    endif()
  endif()
endfunction()
