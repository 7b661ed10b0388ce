use calc::add;

#[test]
fn small() {
    assert_eq!(add(2, 3), 5);
}

#[test]
fn negative() {
    assert_eq!(add(-4, 1), -3);
}
