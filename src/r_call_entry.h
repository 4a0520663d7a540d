// Compiled ahead of cpp11.cpp (the call wrappers cpp11::cpp_register() generates; see the rule
// in Makevars.in). cpp11's BEGIN_CPP11 declares its error-message buffer as
// `char buf[CPP11_ERROR_BUFSIZE] = ""`, which zero-fills 8 KiB of stack on every .Call: about
// 0.1 us, a tenth of device(). The buffer here is left unfilled but for the two bytes END_CPP11
// relies on: the first (read to tell whether a C++ exception left a message) and the last
// (strncpy() writes at most the bytes before it, so a long message still ends there).
#pragma once

#include "cpp11/declarations.hpp"

#undef BEGIN_CPP11
#define BEGIN_CPP11                    \
  SEXP err = R_NilValue;               \
  char buf[CPP11_ERROR_BUFSIZE];       \
  buf[0] = '\0';                       \
  buf[CPP11_ERROR_BUFSIZE - 1] = '\0'; \
  try {
