//! The instance kinds a schema can be proven to accept (rule 10 reasons about them).

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    String,
    Integer,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Boolean => "boolean",
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Integer => "integer",
        }
    }

    /// Type names; Gemini's OpenAPI dialect spells them in capitals (`OBJECT`), so case is
    /// ignored (no other dialect has a type name that differs only in case).
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_lowercase().as_str() {
            "null" => Kind::Null,
            "boolean" => Kind::Boolean,
            "object" => Kind::Object,
            "array" => Kind::Array,
            "number" => Kind::Number,
            "string" => Kind::String,
            "integer" => Kind::Integer,
            _ => return None,
        })
    }

    /// The kind of a literal, as `type` would name it (whole numbers are integers).
    pub fn of(value: &Value) -> Kind {
        match value {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Boolean,
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::Array,
            Value::String(_) => Kind::String,
            Value::Number(n) => {
                if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                    Kind::Integer
                } else {
                    Kind::Number
                }
            }
        }
    }

    pub fn is_structured(self) -> bool {
        matches!(self, Kind::Object | Kind::Array)
    }
}

/// An ordered set of kinds (order of first appearance, for deterministic output).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KindSet(Vec<Kind>);

impl KindSet {
    pub fn insert(&mut self, kind: Kind) {
        if !self.0.contains(&kind) {
            self.0.push(kind);
        }
    }

    pub fn extend(&mut self, other: &KindSet) {
        for k in &other.0 {
            self.insert(*k);
        }
    }

    pub fn contains(&self, kind: Kind) -> bool {
        self.0.contains(&kind)
    }

    pub fn iter(&self) -> impl Iterator<Item = Kind> + '_ {
        self.0.iter().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn has_structured(&self) -> bool {
        self.0.iter().any(|k| k.is_structured())
    }

    /// `integer` is a subset of `number`: when both occur only `number` is needed.
    pub fn fold_integer(mut self) -> KindSet {
        if self.contains(Kind::Number) {
            self.0.retain(|k| *k != Kind::Integer);
        }
        self
    }

    /// The `type` keyword value for this set: a string for one kind, an array otherwise.
    pub fn to_type_value(&self) -> Value {
        match self.0.as_slice() {
            [one] => Value::String(one.name().to_owned()),
            many => Value::Array(
                many.iter()
                    .map(|k| Value::String(k.name().to_owned()))
                    .collect(),
            ),
        }
    }

    /// Parses a `type` keyword value; `None` for anything malformed.
    pub fn from_type_value(value: &Value) -> Option<KindSet> {
        let mut set = KindSet::default();
        match value {
            Value::String(s) => set.insert(Kind::parse(s)?),
            Value::Array(items) => {
                for item in items {
                    set.insert(Kind::parse(item.as_str()?)?);
                }
            }
            _ => return None,
        }
        Some(set)
    }

    /// Kinds of both sets, honouring `integer` ⊂ `number`.
    pub fn intersect(&self, other: &KindSet) -> KindSet {
        let mut out = KindSet::default();
        for k in self.iter() {
            if other.contains(k) {
                out.insert(k);
            } else if (k == Kind::Integer && other.contains(Kind::Number))
                || (k == Kind::Number && other.contains(Kind::Integer))
            {
                out.insert(Kind::Integer);
            }
        }
        out
    }
}

/// The kinds a schema object can be proven to restrict its instances to, or `None` when the
/// schema does not prove any (it may accept every kind). A schema with `properties` but no
/// `type` still accepts strings, so only `type`, `const` and `enum` prove kinds here.
pub fn provable_kinds(schema: &Map<String, Value>, nullable_keyword: bool) -> Option<KindSet> {
    let mut kinds = if let Some(t) = schema.get("type") {
        KindSet::from_type_value(t)?
    } else if let Some(c) = schema.get("const") {
        let mut s = KindSet::default();
        s.insert(Kind::of(c));
        s
    } else if let Some(Value::Array(values)) = schema.get("enum") {
        let mut s = KindSet::default();
        values.iter().for_each(|v| s.insert(Kind::of(v)));
        s
    } else {
        return None;
    };
    if nullable_keyword && schema.get("nullable") == Some(&Value::Bool(true)) {
        kinds.insert(Kind::Null);
    }
    Some(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn kinds_from_type_const_enum() {
        let k = provable_kinds(&obj(json!({"type": ["string", "null"]})), false).unwrap();
        assert_eq!(k.to_type_value(), json!(["string", "null"]));
        let k = provable_kinds(&obj(json!({"const": 3})), false).unwrap();
        assert_eq!(k.to_type_value(), json!("integer"));
        let k = provable_kinds(&obj(json!({"enum": ["a", 1.5]})), false).unwrap();
        assert_eq!(k.to_type_value(), json!(["string", "number"]));
        assert!(provable_kinds(&obj(json!({"properties": {}})), false).is_none());
        let k = provable_kinds(&obj(json!({"type": "STRING", "nullable": true})), true).unwrap();
        assert_eq!(k.to_type_value(), json!(["string", "null"]));
    }

    #[test]
    fn integer_folds_into_number() {
        let mut k = KindSet::default();
        k.insert(Kind::Integer);
        k.insert(Kind::String);
        k.insert(Kind::Number);
        assert_eq!(
            k.fold_integer().to_type_value(),
            json!(["string", "number"])
        );
    }

    #[test]
    fn intersection_respects_integer_subset() {
        let a = KindSet::from_type_value(&json!("number")).unwrap();
        let b = KindSet::from_type_value(&json!(["integer", "string"])).unwrap();
        assert_eq!(a.intersect(&b).to_type_value(), json!("integer"));
    }
}
