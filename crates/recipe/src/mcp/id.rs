//! [`Id`]: a request id or progress token, kept as the JSON text the client wrote.

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A request id or progress token: a JSON string or number, kept as the text the client
/// wrote, so that it is echoed exactly.
///
/// Through a `Value`, a 30-digit number would come back as an `f64`
/// (`1.2345678901234568e+29`), and a string holding a lone surrogate escape (`"\ud800"`,
/// which `JSON.stringify` writes) could not be read at all: a Rust `String` cannot hold it.
#[derive(Debug, Clone)]
pub(crate) struct Id(Box<RawValue>);

impl Id {
    /// The id in `raw`, when it is a string or a number, the kinds JSON-RPC allows.
    pub(crate) fn new(raw: &RawValue) -> Option<Self> {
        // `RawValue` holds one valid JSON value, so its first byte tells its kind.
        match raw.get().as_bytes().first() {
            Some(b'"' | b'-' | b'0'..=b'9') => Some(Self(raw.to_owned())),
            _ => None,
        }
    }

    /// What two ids are compared by. A string is compared by its characters, so `"a"` and
    /// `"\u0061"` are one id, as the client's own comparison would find; a number, and a
    /// string that cannot be decoded, by their text, so every digit counts. A string and a
    /// number of the same digits stay two ids.
    pub(crate) fn key(&self) -> String {
        match serde_json::from_str::<String>(self.0.get()) {
            Ok(text) => Value::String(text).to_string(),
            Err(_) => self.0.get().to_owned(),
        }
    }

    /// The id's JSON text.
    pub(crate) fn as_json(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for Id {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<Id> {
        Id::new(&RawValue::from_string(text.to_owned()).expect("json"))
    }

    #[test]
    fn ids_are_strings_or_numbers_echoed_verbatim() {
        #[track_caller]
        fn case(text: &str, want: Option<(&str, &str)>) {
            let got = id(text).map(|id| {
                let echoed = serde_json::to_string(&id).expect("serializes");
                (echoed, id.key())
            });
            let want = want.map(|(echoed, key)| (echoed.to_owned(), key.to_owned()));
            assert_eq!(got, want, "{text}");
        }
        case("7", Some(("7", "7")));
        case(
            "123456789012345678901234567890",
            Some((
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            )),
        );
        case("-1.50", Some(("-1.50", "-1.50")));
        case(r#""a""#, Some((r#""a""#, r#""a""#)));
        case(r#""\u0061""#, Some((r#""\u0061""#, r#""a""#)));
        case(r#""\ud800""#, Some((r#""\ud800""#, r#""\ud800""#)));
        case("null", None);
        case("true", None);
        case("{}", None);
        case("[1]", None);
    }
}
