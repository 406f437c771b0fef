//! The manifest formats and schema dialects, with the names the CLI uses.

use std::fmt;
use std::str::FromStr;

/// The document shapes a manifest can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ManifestFormat {
    /// A single JSON Schema (draft 2020-12 or draft-07) that is itself the parameter schema.
    BareSchema,
    /// An MCP `tools/list` result, bare or inside a JSON-RPC response.
    Mcp,
    /// OpenAI function tools, Chat Completions or Responses form.
    OpenAi,
    /// Anthropic Messages API tools.
    Anthropic,
    /// Gemini `functionDeclarations`.
    Gemini,
}

impl ManifestFormat {
    pub const ALL: [ManifestFormat; 5] = [
        ManifestFormat::BareSchema,
        ManifestFormat::Mcp,
        ManifestFormat::OpenAi,
        ManifestFormat::Anthropic,
        ManifestFormat::Gemini,
    ];

    /// The `--input-format` name.
    pub fn name(self) -> &'static str {
        match self {
            ManifestFormat::BareSchema => "schema",
            ManifestFormat::Mcp => "mcp",
            ManifestFormat::OpenAi => "openai",
            ManifestFormat::Anthropic => "anthropic",
            ManifestFormat::Gemini => "gemini",
        }
    }

    /// A short human name, e.g. "OpenAI".
    pub fn label(self) -> &'static str {
        match self {
            ManifestFormat::BareSchema => "JSON Schema",
            ManifestFormat::Mcp => "MCP",
            ManifestFormat::OpenAi => "OpenAI",
            ManifestFormat::Anthropic => "Anthropic",
            ManifestFormat::Gemini => "Gemini",
        }
    }

    /// A name for messages, e.g. "an MCP tools/list result".
    pub fn describe(self) -> &'static str {
        match self {
            ManifestFormat::BareSchema => "a JSON Schema",
            ManifestFormat::Mcp => "an MCP tools/list result",
            ManifestFormat::OpenAi => "OpenAI tools",
            ManifestFormat::Anthropic => "Anthropic tools",
            ManifestFormat::Gemini => "Gemini function declarations",
        }
    }
}

impl fmt::Display for ManifestFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An `--input-format` value that names no format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown input format {given:?} (expected one of: schema, mcp, openai, anthropic, gemini)")]
pub struct ParseFormatError {
    pub given: String,
}

impl FromStr for ManifestFormat {
    type Err = ParseFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ManifestFormat::ALL
            .into_iter()
            .find(|format| format.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseFormatError {
                given: s.to_owned(),
            })
    }
}

/// Which schema language a tool's parameter schema is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaDialect {
    /// JSON Schema (draft 2020-12 or draft-07; the document's `$schema` says which).
    JsonSchema,
    /// The OpenAPI 3.0 Schema Object subset used by Gemini's `parameters`.
    OpenApi30,
}

impl fmt::Display for SchemaDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SchemaDialect::JsonSchema => "JSON Schema",
            SchemaDialect::OpenApi30 => "OpenAPI 3.0",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in ManifestFormat::ALL {
            assert_eq!(format.to_string().parse::<ManifestFormat>(), Ok(format));
        }
    }

    #[test]
    fn parse_is_case_insensitive() {
        assert_eq!("OpenAI".parse(), Ok(ManifestFormat::OpenAi));
        assert_eq!(" MCP ".parse(), Ok(ManifestFormat::Mcp));
    }

    #[test]
    fn unknown_name_lists_choices() {
        let err = "bedrock".parse::<ManifestFormat>().unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"unknown input format "bedrock" (expected one of: schema, mcp, openai, anthropic, gemini)"#
        );
    }
}
