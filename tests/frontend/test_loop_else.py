"""Loops with an else clause (kpc.frontend.loop_else): the docstring's example, and the rewrite of
breaks at the loop's own level only."""

from __future__ import annotations

import ast
import doctest

from kpc.frontend import loop_else


def test_docstring_example():
    result = doctest.testmod(loop_else)
    assert result.attempted > 0 and result.failed == 0


def names():
    counter = iter(range(1, 100))
    return lambda base: f"{base}_{next(counter)}"


def test_a_nested_loops_break_is_its_own_and_a_loop_without_break_keeps_its_else_after_it():
    body = ast.parse(
        "for i in range(n):\n"
        "    for j in range(m):\n"
        "        if a[i, j] == v:\n"
        "            break\n"
        "    else:\n"
        "        return i\n"
        "while k > 0:\n"
        "    k -= 1\n"
        "else:\n"
        "    k = 7\n"
        "return -1\n").body
    text = ast.unparse(loop_else.rewrite_loop_else(body, names()))
    assert "else" not in text
    # the inner loop's break sets the inner flag; the outer loop has no break of its own
    assert text.count("broke_1 = True") == 1 and "broke_2" not in text
    assert text.index("if not broke_1:") < text.index("return i")
    # a loop without break: its else block simply follows it
    assert text.index("k -= 1") < text.index("k = 7")


def test_a_break_in_an_else_block_of_a_nested_loop_leaves_the_outer_loop():
    body = ast.parse(
        "for i in range(n):\n"
        "    for j in range(m):\n"
        "        pass\n"
        "    else:\n"
        "        break\n"
        "else:\n"
        "    r = 1\n").body
    text = ast.unparse(loop_else.rewrite_loop_else(body, names()))
    assert "\n    broke_1 = True\n    break" in text and "if not broke_1:\n    r = 1" in text
