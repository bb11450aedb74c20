//! The parameter names of a component's configuration, for the registries' tables
//! (`ccsim list`): read from the serde derive of its `Config` struct.

use serde::de::DeserializeOwned;

/// The field names of a struct deserialised by serde derive: the list its
/// `Deserialize` implementation hands to `deserialize_struct`, read by a deserializer
/// that records it and stops.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    use serde::de::{Error, Visitor};
    struct Names<'a>(&'a mut &'static [&'static str]);
    impl<'de> serde::Deserializer<'de> for Names<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(Error::custom("field names read"))
        }
        fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
            Err(Error::custom("not a struct"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Names(&mut fields));
    fields
}
