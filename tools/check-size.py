#!/usr/bin/env python3
# Size rules for the core's C++ sources: no file over 400 lines, no function body over 60 lines.
"""Usage: check-size.py FILE...   (exit status 1 and one line per offence when a rule is broken)

A function is measured from the line of its opening brace to the line of its closing brace,
both counted. Only outermost functions are measured: a lambda or local class inside a function
counts towards that function. The scan is lexical, not a C++ parser: it blanks out comments,
string and character literals and preprocessor lines, then follows braces, deciding what each
`{` opens from the text before it (since the previous `;`, `{` or `}`):
  - `namespace ...`, `extern "C"`, `class/struct/union ...` open a scope whose braces may hold
    functions (member functions defined in the class count as functions);
  - a head that ends in `)` plus qualifiers (const, noexcept, override, final, a trailing return
    type), or a constructor's member-initializer list, opens a function body;
  - anything else (an enum, an initializer list, a table) is data and is not measured; outside
    functions such a block does not end the head, so `: a_(x), b_{y} {` still reads as a
    constructor.
clang-tidy's readability-function-size would do the same job but needs the whole compile of
every file, minutes on a small machine; this runs in well under a second.
"""
import re
import sys

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60

SCOPE_HEAD = re.compile(r'^(template\s*<.*>\s*)?(inline\s+)?(namespace\b|extern\s+"C"|'
                        r'(class|struct|union)\b(?!.*\)\s*$))', re.S)
QUALIFIERS = r'(\s*(const|noexcept(\s*\(.*\))?|override|final|mutable|&&|&|->\s*[^{;]+))*'
FUNCTION_HEAD = re.compile(r'\)' + QUALIFIERS + r'\s*$', re.S)
# `Name(args) : member_(x), other_(y)` before a constructor's body.
CONSTRUCTOR_HEAD = re.compile(r'\)' + QUALIFIERS + r'\s*:(?!:).*[)}]\s*$', re.S)
CONTROL_HEAD = re.compile(r'^\s*(if|for|while|switch|catch|do|else|try)\b')


def blank_out(text):
    """The source with comments, literals and preprocessor lines replaced by spaces; newlines
    are kept so positions map to the same lines."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':  # a preprocessor line, with its continuations
            while i < n and not (text[i] == '\n' and text[i - 1] != '\\'):
                out.append('\n' if text[i] == '\n' else ' ')
                i += 1
            continue
        if c in ' \t':
            out.append(c)
            i += 1
            continue
        line_start = c == '\n'
        if text.startswith('//', i):
            while i < n and text[i] != '\n':
                out.append(' ')
                i += 1
        elif text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:end]))
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and (text[i - 1].isalnum() or
                                                       text[i - 1] == '_'))):
            # A string or character literal; an apostrophe after a digit is a digit separator.
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n - 1) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def is_function_head(head):
    head = head.strip()
    if not head or CONTROL_HEAD.match(head):
        return False
    return bool(FUNCTION_HEAD.search(head) or CONSTRUCTOR_HEAD.search(head))


def inside(stack, kind):
    return any(entry[0] == kind for entry in stack)


def long_functions(text):
    """(first line, lines, head) of every outermost function longer than the limit."""
    code = blank_out(text)
    stack = []  # one entry per open brace: 'scope', 'function' or 'block'
    head_start = 0
    found = []
    for pos, c in enumerate(code):
        if c in ';':
            head_start = pos + 1
        elif c == '{':
            head = code[head_start:pos]
            if inside(stack, 'function'):
                kind = ('block',)
            elif SCOPE_HEAD.match(head.strip()):
                kind = ('scope',)
            elif is_function_head(head):
                kind = ('function', pos, ' '.join(head.split())[-70:])
            else:
                kind = ('block',)
            if kind[0] != 'block' or inside(stack, 'function'):
                head_start = pos + 1
            stack.append(kind)
        elif c == '}':
            if stack:
                kind = stack.pop()
                if kind[0] == 'function':
                    first = code.count('\n', 0, kind[1]) + 1
                    last = code.count('\n', 0, pos) + 1
                    if last - first + 1 > MAX_FUNCTION_LINES:
                        found.append((first, last - first + 1, kind[2]))
                if kind[0] != 'block' or inside(stack, 'function'):
                    head_start = pos + 1
    return found


def main(paths):
    offences = 0
    for path in paths:
        with open(path, encoding='utf-8', errors='replace') as f:
            text = f.read()
        lines = text.count('\n') + (0 if text.endswith('\n') or not text else 1)
        if lines > MAX_FILE_LINES:
            print(f'{path}: {lines} lines, over the limit of {MAX_FILE_LINES}')
            offences += 1
        for first, length, head in long_functions(text):
            print(f'{path}:{first}: a function of {length} lines, over the limit of '
                  f'{MAX_FUNCTION_LINES}: ...{head}')
            offences += 1
    if offences:
        print(f'{offences} size rule(s) broken: split the file or function by concept.')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
