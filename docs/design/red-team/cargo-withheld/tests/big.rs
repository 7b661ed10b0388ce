use calc::add;

#[test]
fn big() {
    assert_eq!(add(10, 20), 30);
}
