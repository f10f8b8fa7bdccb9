from reducer.text.edits import Edit, apply, carried, compatible, layered, line_span

TEXT = b"f(a, b, c)"


def test_edits_apply_in_order_and_outer_wins():
    assert apply(b"abcdef", [Edit(4, 5, b"X"), Edit(0, 1)]) == b"bcdXf"
    assert apply(b"abcdef", [Edit(1, 5), Edit(2, 3, b"Z")]) == b"af"


def test_identical_edits_count_once_and_insertions_at_one_offset_keep_their_order():
    # two items declaring one alias before their definitions, composed either way
    alias, one, two = Edit(3, 3, b"A;"), Edit(3, 3, b"f;"), Edit(3, 3, b"g;")
    assert apply(b"ns{}", [alias, one, alias, two]) == b"ns{A;f;g;}"
    assert apply(b"ns{}", [alias, two, alias, one]) == b"ns{A;g;f;}"
    assert apply(b"abc", [Edit(1, 2, b"X"), Edit(1, 2, b"X")]) == b"aXc"


def test_compatible_items_are_those_no_other_rewrites_inside():
    # `using A = int; using B = T<A>; B b; A a;`: inlining B pastes `T<A>`, inlining A rewrites B's line
    text = b"using A = int; using B = T<A>; B b; A a;"
    a = (Edit(0, 15), Edit(27, 28, b"int"), Edit(36, 37, b"int"))
    b = (Edit(15, 31), Edit(31, 32, b"T<A>"))
    assert b"A" in apply(text, a + b)  # the union deletes A and pastes it back
    assert compatible([a, b], lambda i: (i,)) == [a]
    assert compatible([a, b], lambda i: (-i,)) == [b]
    c = (Edit(36, 37, b"int"), Edit(38, 39, b"z"))  # one edit identical to a's, one beside
    assert compatible([a, b, c], lambda i: (i,)) == [a, c]


def test_layers_hold_every_item_each_layer_compatible():
    text = b"using A = int; using B = T<A>; B b; A a;"
    a = (Edit(0, 15), Edit(27, 28, b"int"), Edit(36, 37, b"int"))
    b = (Edit(15, 31), Edit(31, 32, b"T<A>"))
    c = (Edit(36, 37, b"int"), Edit(38, 39, b"z"))
    assert layered([a, b, c], lambda i: (i,)) == [[a, c], [b]]
    assert layered([a, b, c], lambda i: (-i,)) == [[b, c], [a]]
    assert b"A" not in apply(text, a + c) and layered([], lambda i: (i,)) == []


def test_overlapping_deletions_merge():
    assert apply(b"abcdef", [Edit(1, 3), Edit(2, 5)]) == b"af"


def test_separators_repaired_after_list_deletions():
    a, b, c = Edit(2, 3), Edit(5, 6), Edit(8, 9)
    assert apply(TEXT, [b]).replace(b" ", b"") == b"f(a,c)"
    assert apply(TEXT, [a]).replace(b" ", b"") == b"f(b,c)"
    assert apply(TEXT, [c]).replace(b" ", b"") == b"f(a,b)"
    assert apply(TEXT, [b, c]).replace(b" ", b"") == b"f(a)"
    assert apply(TEXT, [a, b]).replace(b" ", b"") == b"f(c)"
    assert apply(TEXT, [a, b, c]).replace(b" ", b"") == b"f()"


def test_commas_away_from_deletions_are_untouched():
    text = b"int x[] = {1, 2, };\nf(a, b);"
    assert apply(text, [Edit(text.index(b"b"), text.index(b"b") + 1)]) == b"int x[] = {1, 2, };\nf(a );"


def test_line_span_takes_whole_line_only_when_alone():
    text = b"a;\n  b;\nc; d;\n"
    s = text.index(b"b")
    assert line_span(text, s, s + 2) == (3, 8)
    d = text.index(b"d")
    assert line_span(text, d, d + 2) == (d, d + 2)


def test_items_carried_over_kept_edits_do_the_same_edits_on_the_new_text():
    before = b"int a; int b; int c; int d;"
    items = [(Edit(0, 6),), (Edit(7, 13),), (Edit(14, 20, b"long c;"),), (Edit(21, 27),)]
    kept = [Edit(7, 13)]
    after = apply(before, kept)
    others = [items[0], items[2], items[3]]
    rest = carried(others, kept, before, after)
    assert rest == [(Edit(0, 6),), (Edit(8, 14, b"long c;"),), (Edit(15, 21),)]
    # each carried item makes on the new text what it made on the old, the kept edit with it
    for item, original in zip(rest, others):
        assert apply(after, item) == apply(before, [*kept, *original])


def test_an_item_touching_a_kept_edit_is_left_out_and_nothing_is_guessed():
    before = b"f(a, b); g(c); h(d);"
    # inside the kept edit, and an insertion where it ends: left out; the last one moves
    kept = [Edit(0, 8, b"f();")]
    rest = carried([(Edit(2, 3),), (Edit(8, 8, b" x;"),), (Edit(15, 20),)], kept, before, apply(before, kept))
    assert rest == [(Edit(11, 16),)]
    # overlapping kept deletions are one, as `apply` makes them
    merged = apply(before, [Edit(0, 5), Edit(3, 8)])
    assert carried([(Edit(15, 20),)], [Edit(0, 5), Edit(3, 8)], before, merged) == [(Edit(7, 12),)]
    assert merged[7:12] == b"h(d);"
    # a separator `apply` repaired: the offsets would be guesses
    repaired = apply(before, [Edit(4, 6)])  # `f(a, )` loses its comma too
    assert repaired.startswith(b"f(a);") and carried([(Edit(15, 20),)], [Edit(4, 6)], before, repaired) == []
    # an item inside a kept replacement that is no copy of the text it replaced
    assert carried([(Edit(2, 3),)], [Edit(0, 8, b"f(c);")], before, apply(before, [Edit(0, 8, b"f(c);")])) == []
    # an item whose bytes are not where the shift puts them (the kept text is another one)
    assert carried([(Edit(15, 20),)], [Edit(0, 1, b"F")], before, b"F" + before[1:15] + b"XXXXX") == []


def test_an_item_inside_the_branch_a_fold_kept_moves_with_it():
    """`folded` replaces `if (c) A else B` by A: A's own conditions are still there, and still
    constant; they move with A rather than wait for the compiler to be asked again."""
    before = b"x; if (c) { if (d) y(); else z(); } else { w(); } v;"
    then = before.index(b"{ if")
    inner = before.index(b"if (d)")
    inner_end = before.index(b" }")
    fold = Edit(3, before.index(b" v;"), before[then:before.index(b" else {")])
    after = apply(before, [fold])
    assert after == b"x; { if (d) y(); else z(); } v;"
    inner_fold = (Edit(inner, inner_end, b"y();"),)
    tail = (Edit(len(before) - 2, len(before) - 1),)  # `v`
    rest = carried([inner_fold, tail], [fold], before, after)
    assert rest == [(Edit(5, 5 + inner_end - inner, b"y();"),), (Edit(len(after) - 2, len(after) - 1),)]
    assert apply(after, rest[0]) == b"x; { y(); } v;"
    # a chunk of the chain's folds: `apply` makes the outer one, the inner ones stay in its copy
    chain_kept = [fold, *inner_fold]
    assert apply(before, chain_kept) == after
    assert carried([inner_fold, tail], chain_kept, before, after) == rest
    # the replacement found twice in the range: which copy it is would be a guess
    twice = b"if (c) { y(); } else { y(); }"
    k = Edit(0, len(twice), b"{ y(); }")
    assert carried([(Edit(9, 13, b""),)], [k], twice, apply(twice, [k])) == []
