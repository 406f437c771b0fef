use serde::Serialize;
use serde_json::Value;

/// The dialect whose semantics the engine applies. Only the differences that change what a
/// projection may do are modelled: `$ref` siblings, tuple `items`, `definitions`, `nullable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Draft {
    Draft7,
    Draft2019,
    Draft2020,
    /// OpenAPI 3.0 Schema Object (Gemini `parameters`): `nullable` is meaningful.
    OpenApi30,
}

impl Draft {
    /// Reads `$schema`; a document without one is taken as 2020-12, as the providers do.
    pub fn detect(schema: &Value) -> Draft {
        let Some(uri) = schema.get("$schema").and_then(Value::as_str) else {
            return Draft::Draft2020;
        };
        if ["draft-07", "draft-06", "draft-04", "draft-03"]
            .iter()
            .any(|d| uri.contains(d))
        {
            Draft::Draft7
        } else if uri.contains("2019-09") {
            Draft::Draft2019
        } else {
            Draft::Draft2020
        }
    }

    /// Before 2019-09 a `$ref` makes its siblings ignored.
    pub fn ref_overrides_siblings(self) -> bool {
        self == Draft::Draft7
    }

    pub fn has_nullable(self) -> bool {
        self == Draft::OpenApi30
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_from_dollar_schema() {
        assert_eq!(Draft::detect(&json!({})), Draft::Draft2020);
        assert_eq!(
            Draft::detect(&json!({"$schema": "http://json-schema.org/draft-07/schema#"})),
            Draft::Draft7
        );
        assert_eq!(
            Draft::detect(&json!({"$schema": "https://json-schema.org/draft/2019-09/schema"})),
            Draft::Draft2019
        );
    }
}
