# cmake/StepcastLibrary.cmake: libstepcast, made of one target per layer
# (cmake/StepcastLayers.cmake), as a static archive (stepcast_lib: what the
# CLI, the tests and the benchmarks link) and a shared library
# (stepcast_shared: what `cmake --install` ships for the public API,
# include/stepcast/stepcast.h, exporting only its sc_ symbols).
include(${CMAKE_CURRENT_LIST_DIR}/StepcastLayers.cmake)
include(GNUInstallDirs)

# What every layer compiles with.  No source path is compiled in: data is
# found at run time (sim/config/datadir.h).
add_library(stepcast_common INTERFACE)
# BUILD/include holds <stepcast/status.h> for the public header (below).
target_include_directories(stepcast_common INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
  $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include>)
target_compile_definitions(stepcast_common INTERFACE STEPCAST_VERSION="${PROJECT_VERSION}")

# The layers, lowest first; a layer links (and may include) only those it
# names and theirs.  SimGrid is the DES engine's alone.
stepcast_layer(models    DIRS models                   PUBLIC_LIBS GSL::gsl m)
stepcast_layer(config    DIRS sim/config               DEPS models
               PUBLIC_LIBS ${STEPCAST_CJSON} PRIVATE_LIBS ${CMAKE_DL_LIBS})
stepcast_layer(analytic  DIRS sim/analytic             DEPS config)
stepcast_layer(des       DIRS sim/des                  DEPS analytic PRIVATE_LIBS PkgConfig::SIMGRID)
stepcast_layer(serve     DIRS sim/serve                DEPS config)
# search and plan are one layer: the search prices layouts with plan's cost
# model (cost.h) and plan sizes clusters with the search.
stepcast_layer(search    DIRS sim/search sim/plan      DEPS analytic des)
stepcast_layer(calibrate DIRS calibrate calibrate/ingest calibrate/fit DEPS analytic)
# validate --collectives fits with calibrate's one least-squares core
stepcast_layer(validate  DIRS sim/validate             DEPS analytic serve calibrate)
stepcast_layer(api       DIRS sim/api include/stepcast DEPS analytic)
# placement: what a placement costs (both engines) and which free nodes to
# pick; sim/cluster: several jobs on one fabric (training in the DES, serving)
stepcast_layer(placement DIRS sim/placement sim/cluster DEPS des serve)
stepcast_layer(reports   DIRS reports                  DEPS search validate des calibrate serve placement)
stepcast_layer(cli       DIRS sim/cli                  DEPS reports api NO_TARGET)
# calibrate/bench: the GPU microbenchmarks, built by calibrate/CMakeLists.txt.
stepcast_layers_finish(OUTSIDE calibrate/bench)

# The include check: the build fails when a layer includes a header of a
# layer above it (scripts/check-layers; ctest unit.layers shows it catching
# one).
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/layers.ok
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check-layers ${CMAKE_BINARY_DIR}/layers.txt ${PROJECT_SOURCE_DIR}
  COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/layers.ok
  DEPENDS ${PROJECT_SOURCE_DIR}/scripts/check-layers ${CMAKE_BINARY_DIR}/layers.txt ${STEPCAST_LAYER_FILES}
  COMMENT "Checking that no layer includes a header of a layer above it"
  VERBATIM)
add_custom_target(stepcast_layer_check ALL DEPENDS ${CMAKE_BINARY_DIR}/layers.ok)
foreach(t IN LISTS STEPCAST_LAYER_TARGETS)
  add_dependencies(${t} stepcast_layer_check)
endforeach()

add_library(stepcast_lib STATIC)
set_target_properties(stepcast_lib PROPERTIES OUTPUT_NAME stepcast)
target_link_libraries(stepcast_lib PRIVATE ${STEPCAST_LAYER_TARGETS})
# The tests include project headers (relative paths) and cJSON.
target_link_libraries(stepcast_lib PUBLIC stepcast_common ${STEPCAST_CJSON})

add_library(stepcast_shared SHARED)
set_target_properties(stepcast_shared PROPERTIES OUTPUT_NAME stepcast
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/include/stepcast/stepcast.map)
target_link_libraries(stepcast_shared PRIVATE ${STEPCAST_LAYER_TARGETS})
# Only the public API (the sc_ prefix) is exported; the layers' own
# functions stay inside.
target_link_options(stepcast_shared PRIVATE
  -Wl,--version-script=${PROJECT_SOURCE_DIR}/include/stepcast/stepcast.map)
# Every symbol resolved at link time (not in sanitizer or fuzz builds, whose
# runtimes clang links into executables only).
if(NOT STEPCAST_SANITIZE AND NOT STEPCAST_FUZZ)
  target_link_options(stepcast_shared PRIVATE -Wl,--no-undefined)
endif()
target_include_directories(stepcast_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/include>)

# The public header's <stepcast/status.h> is models/status.h (one owner):
# the build tree gets a copy where the installed headers put it.
configure_file(${PROJECT_SOURCE_DIR}/models/status.h ${CMAKE_BINARY_DIR}/include/stepcast/status.h COPYONLY)

# The build tree's data directory (sim/config/datadir.h): BUILD/share/stepcast
# links to the source tree, laid out as an install puts it.
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/stepcast)
foreach(pair configs:configs scenarios:scenarios validation:tests/validation/data regress:tests/regress)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 link)
  list(GET pair 1 target)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${target} ${CMAKE_BINARY_DIR}/share/stepcast/${link} SYMBOLIC)
endforeach()
