# One static library per pipeline stage (docs/architecture.md). A stage's
# headers are reachable only through its own include root,
# build/stages/<stage>/<folder> -> the source folder, and a library sees only
# the roots of the stages it links (PUBLIC, so transitively: the stages before
# it). An #include against the flow therefore fails to compile:
#   collectors/cpu.cc: fatal error: analysis/snapshot.h: No such file or directory
# tests/layering/ keeps one such include building and failing.
#
# bottleneckd_stage(NAME FOLDER [SOURCES f.cc...] [LINKS target...])
#   NAME     library name without the bottleneckd_ prefix ("window")
#   FOLDER   source folder, relative to the project root ("exporters/http")
#   SOURCES  default: every *.cc in FOLDER
#   LINKS    the stages (bottleneckd_*) and external targets it may use
function(bottleneckd_stage name folder)
  cmake_parse_arguments(STAGE "" "" "SOURCES;LINKS" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/stages/${name})
  get_filename_component(parent ${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${root}/${parent})
  if(NOT EXISTS ${root}/${folder})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder} SYMBOLIC)
  endif()
  if(NOT STAGE_SOURCES)
    file(GLOB STAGE_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.cc)
  endif()
  add_library(bottleneckd_${name} STATIC ${STAGE_SOURCES})
  if(BOTTLENECKD_UNITY)
    # Batches of a stage's sources compiled as one file: the headers every
    # source of a stage parses (yaml-cpp, prometheus-cpp, the STL) once per
    # batch instead of once per source. A fresh GCC tree with Ninja on the
    # 2-core VM: 460 s (14.0 min of CPU) without, 376 s (11.2) with
    # (docs/performance.md, "CI"). Off for day-to-day trees, where a change
    # recompiles one file and not its batch. A batch is one translation unit,
    # so two sources of a stage may not define the same internal name.
    set_target_properties(bottleneckd_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
  target_include_directories(bottleneckd_${name} PUBLIC ${root})
  target_link_libraries(bottleneckd_${name} PUBLIC ${STAGE_LINKS})
endfunction()
