# The layers of shared/DESIGN.md and what each may use (issue 19, item 6).
# Each layer calls only downward: it may include its own headers and those of
# the layers listed for it. Only core and api may include MPI, only net UCX.
#
# Used two ways:
#  - include()d by src/CMakeLists.txt: armada_check_layers(<src dir>) stops
#    the configuration at the first violation;
#  - as a script (cmake -DSRC=<src dir> -P ArmadaLayers.cmake), which the
#    test build.layers runs.
cmake_policy(SET CMP0057 NEW)
set(ARMADA_LAYER_ORDER util topo shm net server core api)
set(ARMADA_LAYER_USES_util   util)
set(ARMADA_LAYER_USES_topo   util topo)
set(ARMADA_LAYER_USES_shm    util shm)
set(ARMADA_LAYER_USES_net    util net)
set(ARMADA_LAYER_USES_server util topo shm net server)
set(ARMADA_LAYER_USES_core   util topo shm net server core)
set(ARMADA_LAYER_USES_api    util topo shm net server core api)
set(ARMADA_LAYERS_WITH_MPI core api)
set(ARMADA_LAYERS_WITH_UCX net)

# Sets <out> to the list of violations ("file: reason") under src_dir.
function(armada_layer_violations src_dir out)
  set(bad "")
  list(JOIN ARMADA_LAYERS_WITH_MPI " and " mpi_layers)
  foreach(layer ${ARMADA_LAYER_ORDER})
    list(JOIN ARMADA_LAYER_USES_${layer} ", " uses)
    file(GLOB files ${src_dir}/${layer}/*.c ${src_dir}/${layer}/*.h)
    foreach(f ${files})
      file(STRINGS ${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
      foreach(line ${incs})
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]*)[>\"].*" "\\1" h "${line}")
        file(RELATIVE_PATH rel ${src_dir} ${f})
        if(h MATCHES "^mpi(\\.h|ext/)" AND NOT layer IN_LIST ARMADA_LAYERS_WITH_MPI)
          list(APPEND bad "src/${rel}: includes <${h}>, which only ${mpi_layers} may use")
        elseif(h MATCHES "^(ucp|uct|ucs|ucm)/" AND NOT layer IN_LIST ARMADA_LAYERS_WITH_UCX)
          list(APPEND bad "src/${rel}: includes <${h}>, which only net may use")
        elseif(h MATCHES "^([a-z]+)/" AND CMAKE_MATCH_1 IN_LIST ARMADA_LAYER_ORDER
               AND NOT CMAKE_MATCH_1 IN_LIST ARMADA_LAYER_USES_${layer})
          list(APPEND bad "src/${rel}: includes \"${h}\", but ${layer} uses only ${uses}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  set(${out} "${bad}" PARENT_SCOPE)
endfunction()

function(armada_check_layers src_dir)
  armada_layer_violations(${src_dir} bad)
  if(bad)
    list(JOIN bad "\n  " text)
    message(FATAL_ERROR "A layer uses what it must not (cmake/ArmadaLayers.cmake):\n  ${text}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED SRC)
  get_filename_component(SRC "${SRC}" ABSOLUTE)
  armada_layer_violations(${SRC} bad)
  if(bad)
    list(JOIN bad "\n  " text)
    message(FATAL_ERROR "layer violations:\n  ${text}")
  endif()
  message(STATUS "layers: every include in ${SRC} goes downward, MPI only in core "
                 "and api, UCX only in net")
endif()
