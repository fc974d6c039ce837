# Checks the machine code of element-wise kernels (see dimgraph_add_codegen_tests in
# dimgraphTestHelpers.cmake).
#   cmake -DCOMPILER=<c++> -DSOURCE=<kernels.cpp> -DINCLUDE_DIR=<dir> -DWORK_DIR=<dir>
#         [-DSYSTEM_INCLUDE_DIRS=<dir|dir...>] [-DOBJDUMP=<objdump>] [-DRULE=body|loop]
#         [-DLEVEL=native|O2] -P run_codegen_check.cmake
# The functions to check follow "// codegen: " (on one or more such lines) in the first lines of
# SOURCE: extern "C" names,
# or, for a library function compiled out of line, a pattern in which * stands for any text
# that matches the function's demangled name ("*reduce_block<*sum_reduce*": the first function
# whose name matches).
# SOURCE is compiled with -O3 -march=x86-64-v3 (LEVEL native, the default: AVX2 on every
# machine, whatever the host) or with plain -O2 (LEVEL O2: what most users build with, SSE2
# only) and disassembled with objdump. A function passes when its body holds at least one
# packed SIMD float or double instruction on ymm registers (vaddps, vmulps, vfmadd231ps,
# vaddpd, ...; on xmm registers for LEVEL O2: addps, mulps, addpd, ...) and
#   RULE body (default): no call at all: no call instruction and no jump to another function
#                        (a tail call); jumps into its own cold part (GCC's <name>.cold,
#                        relocated against .text.unlikely in the object), which holds the
#                        error paths, are allowed;
#   RULE loop:           no call inside the innermost loop (the shortest backward jump's
#                        range that holds no return) around each packed float instruction;
#                        calls elsewhere (set-up, outer loops, error paths) are allowed.
# A COMPILER that is not installed prints "codegen: skipped" (a skipped test) and passes.

foreach(_var COMPILER SOURCE INCLUDE_DIR WORK_DIR)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_codegen_check.cmake: ${_var} is not set")
  endif()
endforeach()
if(NOT DEFINED OBJDUMP OR OBJDUMP STREQUAL "")
  set(OBJDUMP objdump)
endif()
if(NOT DEFINED RULE OR RULE STREQUAL "")
  set(RULE body)
elseif(NOT RULE MATCHES "^(body|loop)$")
  message(FATAL_ERROR "run_codegen_check.cmake: RULE must be body or loop, not '${RULE}'")
endif()

if(NOT DEFINED LEVEL OR LEVEL STREQUAL "")
  set(LEVEL native)
elseif(NOT LEVEL MATCHES "^(native|O2)$")
  message(FATAL_ERROR "run_codegen_check.cmake: LEVEL must be native or O2, not '${LEVEL}'")
endif()
if(LEVEL STREQUAL "O2")
  set(_level_flags -O2)
  set(_register xmm)
  set(_packed_prefix "v?")
else()
  set(_level_flags -O3 -march=x86-64-v3)
  set(_register ymm)
  set(_packed_prefix "v")
endif()

find_program(_compiler NAMES "${COMPILER}" NO_CACHE)
if(NOT _compiler)
  message("codegen: skipped: ${COMPILER} is not installed")
  return()
endif()
find_program(_objdump NAMES "${OBJDUMP}" NO_CACHE)
if(NOT _objdump)
  message(FATAL_ERROR "codegen: ${OBJDUMP} is not installed (binutils)")
endif()

file(READ "${SOURCE}" _head_of_source LIMIT 4096)
# (Every "// codegen:" line counts: a long list may take several.)
string(REGEX MATCHALL "(^|\n)// codegen:[^\r\n]*" _codegen_lines "${_head_of_source}")
if(NOT _codegen_lines)
  message(FATAL_ERROR "${SOURCE}: missing '// codegen: <function>...' in its first lines")
endif()
set(_functions "")
foreach(_line IN LISTS _codegen_lines)
  string(REGEX REPLACE "^\n?// codegen:" "" _line "${_line}")
  string(APPEND _functions " ${_line}")
endforeach()
string(STRIP "${_functions}" _functions)
string(REGEX REPLACE "[ \t]+" ";" _functions "${_functions}")
if(_functions STREQUAL "")
  message(FATAL_ERROR "${SOURCE}: the '// codegen:' line names no function")
endif()

# Compile to an object.
get_filename_component(_stem "${SOURCE}" NAME_WE)
file(MAKE_DIRECTORY "${WORK_DIR}")
set(_object "${WORK_DIR}/${_stem}.o")
# (Without run-time dispatch: the kernels checked are the build's own. The dispatched ones are
# the same code compiled for a wider target, which LEVEL native checks; with dispatch, a -O2
# row loop calls them, one call per row, and holds its own kernel beside the call.)
set(_flags -std=c++20 ${_level_flags} -DNDEBUG -DDIMGRAPH_CONFIG_DISPATCH=0 -c "-I${INCLUDE_DIR}")
string(REPLACE "|" ";" _system_dirs "${SYSTEM_INCLUDE_DIRS}")
foreach(_dir IN LISTS _system_dirs)
  list(APPEND _flags -isystem "${_dir}")
endforeach()
set(_command "${_compiler}" ${_flags} "${SOURCE}" -o "${_object}")
string(REPLACE ";" " " _command_line "${_command}")
message("${_command_line}")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C ${_command}
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _output
  ERROR_VARIABLE _output)
if(NOT _result EQUAL 0)
  message("${_output}")
  message(FATAL_ERROR "codegen: ${SOURCE} does not compile")
endif()

# Disassemble: instructions without their bytes, relocations (the callees of calls that the
# linker resolves) and demangled names, kept next to the object for reading.
set(_listing "${WORK_DIR}/${_stem}.dis")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C "${_objdump}" -d -r -C --no-show-raw-insn "${_object}"
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _disassembly
  ERROR_VARIABLE _errors)
if(NOT _result EQUAL 0)
  message(FATAL_ERROR "codegen: ${OBJDUMP} failed on ${_object}:\n${_errors}")
endif()
file(WRITE "${_listing}" "${_disassembly}")

# One CMake list element per line: first hide the characters that lists treat specially
# (demangled names may hold ';' and '[]'), to be restored in the report.
string(REPLACE ";" "@SC@" _disassembly "${_disassembly}")
string(REPLACE "[" "@LB@" _disassembly "${_disassembly}")
string(REPLACE "]" "@RB@" _disassembly "${_disassembly}")
string(REPLACE "\n" ";" _lines "${_disassembly}")

set(_instruction "^ *[0-9a-f]+:\t")
set(_packed_float "${_packed_prefix}(add|sub|mul|div|min|max|fm(add|sub)[0-9]+|fnm(add|sub)[0-9]+)p[sd]")
set(_failures "")
foreach(_fn IN LISTS _functions)
  # The name as a regular expression: * any text; the other characters of a pattern are
  # letters, digits and _:<>, which stand for themselves. (A pattern matches a compiler's
  # clone, such as GCC's "[clone .isra.0]", but not a function's cold part.)
  if(NOT _fn MATCHES "^[A-Za-z0-9_:<>,*]+$")
    message(FATAL_ERROR "codegen: '${_fn}': a name or pattern holds letters, digits, _:<>, and *")
  endif()
  string(REPLACE "*" ".*" _fn_regex "^${_fn}$")
  set(_inside FALSE)
  set(_found FALSE)
  set(_simd_kinds "")
  set(_simd_at "")    # addresses (decimal) of the packed float instructions
  set(_calls "")      # one report line per call or tail call ...
  set(_calls_at "")   # ... and its address
  set(_loops "")      # backward jumps within the function: "<target>-<jump>" address ranges
  set(_rets_at "")    # addresses of the returns
  set(_previous "")   # the kind of instruction a relocation line belongs to: call, jump or other
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^[0-9a-f]+ <(.+)>:$")
      if(_inside)
        break()
      endif()
      set(_label "${CMAKE_MATCH_1}")  # (kept: every MATCHES below sets CMAKE_MATCH_1)
      if(_label STREQUAL _fn OR (_fn MATCHES "[*]" AND _label MATCHES "${_fn_regex}" AND
                                 NOT _label MATCHES "[.]cold"))
        set(_inside TRUE)
        set(_found TRUE)
      endif()
      continue()
    elseif(NOT _inside)
      continue()
    elseif(_line MATCHES "^[ \t]*$")
      break()
    elseif(_line MATCHES "R_X86_64_[A-Z0-9_]+[ \t]+(.*)$")
      # The relocation of the instruction above: it names the callee of a call (resolved by
      # the linker); a jump through a PLT relocation is a tail call to another function.
      string(STRIP "${CMAKE_MATCH_1}" _symbol)
      string(SUBSTRING "${_symbol}" 0 200 _symbol)
      if(_previous STREQUAL "call")
        list(POP_BACK _calls _call)
        list(APPEND _calls "${_call} -> ${_symbol}")
      elseif(_previous STREQUAL "foreign jump")
        # In an object file a jump into the cold section (GCC's <name>.cold) is relocated
        # against .text.unlikely and shown with whatever label sits at offset 0: not a call.
        if(_symbol MATCHES "^\\.text\\.unlikely" OR _symbol MATCHES "^${_fn}\\.cold")
          list(POP_BACK _calls)
          list(POP_BACK _calls_at)
        endif()
      elseif(_previous STREQUAL "jump" AND _line MATCHES "R_X86_64_PLT32")
        list(APPEND _calls "tail call: ${_jump} -> ${_symbol}")
        list(APPEND _calls_at ${_address})
      endif()
      set(_previous "")
      continue()
    elseif(NOT _line MATCHES "^ *([0-9a-f]+):\t")
      continue()
    endif()
    math(EXPR _address "0x${CMAKE_MATCH_1}" OUTPUT_FORMAT DECIMAL)
    set(_previous "other")
    if(_line MATCHES "${_instruction}(${_packed_float})[ \t].*%${_register}")
      list(APPEND _simd_kinds "${CMAKE_MATCH_1}")
      list(APPEND _simd_at ${_address})
    elseif(_line MATCHES "${_instruction}retq?([ \t]|$)")
      list(APPEND _rets_at ${_address})
    elseif(_line MATCHES "${_instruction}callq?[ \t]")
      string(STRIP "${_line}" _call)
      list(APPEND _calls "${_call}")
      list(APPEND _calls_at ${_address})
      set(_previous "call")
    elseif(_line MATCHES "${_instruction}(jmpq?|j[a-z]+)[ \t]+([0-9a-f]+) <([^>+]+)")
      string(STRIP "${_line}" _jump)
      math(EXPR _target "0x${CMAKE_MATCH_2}" OUTPUT_FORMAT DECIMAL)
      if(CMAKE_MATCH_3 STREQUAL _fn OR CMAKE_MATCH_3 STREQUAL "${_fn}.cold")
        set(_previous "jump")
        if(_target LESS_EQUAL _address)
          list(APPEND _loops "${_target}-${_address}")
        endif()
      else()
        # A jump resolved to another function is a tail call (unless its relocation, on the
        # next line, shows a jump into the cold section).
        set(_previous "foreign jump")
        list(APPEND _calls "tail call: ${_jump}")
        list(APPEND _calls_at ${_address})
      endif()
    endif()
  endforeach()

  if(NOT _found)
    string(APPEND _failures "  ${_fn}: no such function in ${_object}\n")
    continue()
  endif()
  list(LENGTH _simd_at _simd)
  list(REMOVE_DUPLICATES _simd_kinds)
  string(REPLACE ";" ", " _simd_kinds "${_simd_kinds}")

  # The calls that break the rule: every call (RULE body), or those inside a loop that holds
  # a packed float instruction (RULE loop).
  set(_bad "")
  set(_where "")
  if(RULE STREQUAL "body")
    set(_bad "${_calls}")
  else()
    set(_where " in its SIMD loops")
    # The hot loops: for each packed float instruction, the innermost (shortest) backward
    # jump range around it. (Wider ranges also come from jumps back to code shared with a
    # slow path, so they say little about loops. A range that holds a return is no loop: it
    # is a slow path laid out after the return that jumps back into the function, and the
    # last piece of a row, straight-line code before the return, would count as in it.)
    set(_loops_without_return "")
    foreach(_loop IN LISTS _loops)
      string(REPLACE "-" ";" _range "${_loop}")
      list(GET _range 0 _lo)
      list(GET _range 1 _hi)
      set(_returns FALSE)
      foreach(_ret IN LISTS _rets_at)
        if(_ret GREATER_EQUAL _lo AND _ret LESS_EQUAL _hi)
          set(_returns TRUE)
          break()
        endif()
      endforeach()
      if(NOT _returns)
        list(APPEND _loops_without_return "${_loop}")
      endif()
    endforeach()
    set(_hot "")
    foreach(_at IN LISTS _simd_at)
      set(_best "")
      foreach(_loop IN LISTS _loops_without_return)
        string(REPLACE "-" ";" _range "${_loop}")
        list(GET _range 0 _lo)
        list(GET _range 1 _hi)
        math(EXPR _span "${_hi} - ${_lo}")
        if(_at GREATER_EQUAL _lo AND _at LESS_EQUAL _hi AND (_best STREQUAL "" OR _span LESS _best))
          set(_best ${_span})
          set(_best_range "${_lo};${_hi}")
        endif()
      endforeach()
      if(NOT _best STREQUAL "")
        list(APPEND _hot ${_best_range})
      endif()
    endforeach()
    set(_i 0)
    foreach(_at IN LISTS _calls_at)
      list(GET _calls ${_i} _call)
      math(EXPR _i "${_i} + 1")
      set(_k 0)
      list(LENGTH _hot _hot_length)
      while(_k LESS _hot_length)
        math(EXPR _k1 "${_k} + 1")
        list(GET _hot ${_k} _lo)
        list(GET _hot ${_k1} _hi)
        if(_at GREATER_EQUAL _lo AND _at LESS_EQUAL _hi)
          list(APPEND _bad "${_call}")
          break()
        endif()
        math(EXPR _k "${_k} + 2")
      endwhile()
    endforeach()
  endif()

  list(LENGTH _bad _bad_count)
  list(LENGTH _calls _call_count)
  if(_simd EQUAL 0 OR _bad_count GREATER 0)
    if(_simd EQUAL 0)
      string(APPEND _failures "  ${_fn}: no packed SIMD float instruction on ${_register} registers\n")
    endif()
    if(_bad_count GREATER 0)
      string(APPEND _failures "  ${_fn}: ${_bad_count} call(s)${_where}:\n")
      foreach(_call IN LISTS _bad)
        string(APPEND _failures "      ${_call}\n")
      endforeach()
    endif()
  elseif(_call_count GREATER 0)
    message("${_fn}: ${_simd} packed ${_register} float instructions (${_simd_kinds}); "
            "${_call_count} call(s) outside its SIMD loops")
  else()
    message("${_fn}: ${_simd} packed ${_register} float instructions (${_simd_kinds}), no calls")
  endif()
endforeach()

if(NOT _failures STREQUAL "")
  string(REPLACE "@SC@" ";" _failures "${_failures}")
  string(REPLACE "@LB@" "[" _failures "${_failures}")
  string(REPLACE "@RB@" "]" _failures "${_failures}")
  message("${_failures}(rule: ${RULE}; disassembly: ${_listing})")
  message(FATAL_ERROR "codegen: the kernels above are not call-free SIMD loops")
endif()
