//! Reprojecting a new version of a manifest without redoing the tools whose schema did not
//! change: an edit usually touches one tool, and projecting every tool of a 1 MB manifest again
//! costs more than loading it.

use std::collections::HashMap;
use std::sync::Arc;

use crate::manifest::{SchemaDialect, Tool};
use crate::{Options, Projection, ProjectionError, project_tool};

/// The projections of the previous version of a manifest, reused for each tool whose schema,
/// dialect and options are the same in the new version. Correct because [`project_tool`]
/// depends on nothing else.
///
/// Per version: call [`project`](Self::project) (or [`get_or_project`](Self::get_or_project))
/// for its tools, then [`next_version`](Self::next_version) once it is fully reprojected.
#[derive(Debug, Default)]
pub struct ProjectionCache {
    options: String,
    previous: HashMap<String, Vec<Entry>>,
    current: HashMap<String, Vec<Entry>>,
}

#[derive(Debug)]
struct Entry {
    dialect: SchemaDialect,
    /// The tool's own schema, shared: the same tool asked again is known by address, without
    /// comparing (or copying) a schema that can be tens of MB.
    schema: Arc<serde_json::Value>,
    projection: Arc<Projection>,
}

impl ProjectionCache {
    pub fn new() -> ProjectionCache {
        ProjectionCache::default()
    }

    /// The projection of `tool`: the previous version's when nothing it depends on changed.
    pub fn project(
        &mut self,
        tool: &Tool,
        options: &Options,
    ) -> Result<Arc<Projection>, ProjectionError> {
        self.get_or_project(tool, options, project_tool)
    }

    /// Like [`project`](Self::project), with the caller's own projection on a miss (to shape
    /// its errors). Failures are not kept: a tool that failed is projected again next time.
    pub fn get_or_project<E>(
        &mut self,
        tool: &Tool,
        options: &Options,
        project: impl FnOnce(&Tool, &Options) -> Result<Projection, E>,
    ) -> Result<Arc<Projection>, E> {
        self.use_options(options);
        // By address first; by content for a new version's tool (a save re-reads the file).
        let same = |e: &Entry| {
            e.dialect == tool.dialect
                && (Arc::ptr_eq(&e.schema, &tool.schema) || *e.schema == *tool.schema)
        };
        if let Some(e) = self
            .current
            .get(&tool.name)
            .and_then(|v| v.iter().find(|e| same(e)))
        {
            return Ok(e.projection.clone());
        }
        let reused = self.previous.get_mut(&tool.name).and_then(|v| {
            let i = v.iter().position(same)?;
            Some(v.swap_remove(i))
        });
        let entry = match reused {
            Some(entry) => entry,
            None => Entry {
                dialect: tool.dialect,
                schema: tool.schema.clone(),
                projection: Arc::new(project(tool, options)?),
            },
        };
        let projection = entry.projection.clone();
        self.current
            .entry(tool.name.clone())
            .or_default()
            .push(entry);
        Ok(projection)
    }

    /// Keeps `projection` as `tool`'s under `options`, known by the schema's address only:
    /// for a caller that projected it because the cache had nothing for this schema, and that
    /// must not spend time comparing a new version's schema with the old one by content. The
    /// same schema (by address) kept already is kept once; the projection kept is returned.
    pub fn insert(
        &mut self,
        tool: &Tool,
        options: &Options,
        projection: Arc<Projection>,
    ) -> Arc<Projection> {
        self.use_options(options);
        let kept = self.current.entry(tool.name.clone()).or_default();
        if let Some(e) = kept
            .iter()
            .find(|e| e.dialect == tool.dialect && Arc::ptr_eq(&e.schema, &tool.schema))
        {
            return e.projection.clone();
        }
        kept.push(Entry {
            dialect: tool.dialect,
            schema: tool.schema.clone(),
            projection: projection.clone(),
        });
        projection
    }

    /// Forgets everything kept under other options.
    fn use_options(&mut self, options: &Options) {
        // `Options` has no `PartialEq`; its `Debug` form shows every field, including any
        // added later, which a hand-written comparison would silently miss.
        let options_key = format!("{options:?}");
        if options_key != self.options {
            self.previous.clear();
            self.current.clear();
            self.options = options_key;
        }
    }

    /// The version is done: what it did not ask for is forgotten, so that the cache holds at
    /// most two versions' worth.
    pub fn next_version(&mut self) {
        self.previous = std::mem::take(&mut self.current);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest;
    use std::cell::Cell;

    fn tools(text: &str) -> Vec<Tool> {
        manifest::load_str(text, "m.json", None).unwrap().tools
    }

    fn counted<'a>(
        calls: &'a Cell<usize>,
    ) -> impl FnOnce(&Tool, &Options) -> Result<Projection, ProjectionError> + 'a {
        move |t, o| {
            calls.set(calls.get() + 1);
            project_tool(t, o)
        }
    }

    const TWO: &str = r#"{"tools": [
        {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}},
        {"name": "b", "inputSchema": {"type": "object", "properties": {"y": {"type": "string"}}}}
    ]}"#;

    #[test]
    fn only_changed_tools_are_projected_again() {
        let options = Options::default();
        let calls = Cell::new(0);
        let mut cache = ProjectionCache::new();
        for tool in &tools(TWO) {
            cache
                .get_or_project(tool, &options, counted(&calls))
                .unwrap();
        }
        cache.next_version();
        assert_eq!(calls.get(), 2);

        let edited = TWO.replace(r#""y": {"type": "string"}"#, r#""y": {"type": "boolean"}"#);
        for tool in &tools(&edited) {
            let cached = cache
                .get_or_project(tool, &options, counted(&calls))
                .unwrap();
            assert_eq!(cached.schema, project_tool(tool, &options).unwrap().schema);
        }
        cache.next_version();
        assert_eq!(calls.get(), 3, "only `b` changed");
    }

    #[test]
    fn other_options_are_other_projections() {
        let calls = Cell::new(0);
        let mut cache = ProjectionCache::new();
        let tool = &tools(TWO)[0];
        let flat = cache
            .get_or_project(tool, &Options::flat(), counted(&calls))
            .unwrap();
        let inline = cache
            .get_or_project(tool, &Options::inline(), counted(&calls))
            .unwrap();
        assert_eq!(calls.get(), 2);
        assert_eq!(flat.mode, Options::flat().mode);
        assert_eq!(inline.mode, Options::inline().mode);
    }

    #[test]
    fn a_version_keeps_only_what_it_asked_for() {
        let options = Options::default();
        let calls = Cell::new(0);
        let mut cache = ProjectionCache::new();
        let [a, b] = <[Tool; 2]>::try_from(tools(TWO)).unwrap();
        cache.get_or_project(&a, &options, counted(&calls)).unwrap();
        cache.get_or_project(&b, &options, counted(&calls)).unwrap();
        cache.next_version();
        // A version without `b`; then `b` is back and must be projected anew.
        cache.get_or_project(&a, &options, counted(&calls)).unwrap();
        cache.next_version();
        cache.get_or_project(&b, &options, counted(&calls)).unwrap();
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn the_same_tool_twice_in_one_version_is_projected_once() {
        let options = Options::default();
        let calls = Cell::new(0);
        let mut cache = ProjectionCache::new();
        let tool = &tools(TWO)[1];
        cache
            .get_or_project(tool, &options, counted(&calls))
            .unwrap();
        cache
            .get_or_project(tool, &options, counted(&calls))
            .unwrap();
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn cached_projections_equal_fresh_ones_for_every_sample() {
        let options = Options::default();
        let mut cache = ProjectionCache::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/samples");
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            let m = manifest::load_path(&path, None).unwrap();
            // Twice: the second round is served from the cache.
            for _ in 0..2 {
                for tool in &m.tools {
                    let cached = cache.project(tool, &options);
                    let fresh = project_tool(tool, &options);
                    match (cached, fresh) {
                        (Ok(c), Ok(f)) => assert_eq!(c.schema, f.schema, "{}", path.display()),
                        (Err(c), Err(f)) => assert_eq!(c, f),
                        (c, f) => panic!("{}: {c:?} vs {f:?}", path.display()),
                    }
                }
                cache.next_version();
            }
        }
    }

    #[test]
    fn an_inserted_projection_is_found_by_address_and_kept_once() {
        let options = Options::default();
        let calls = Cell::new(0);
        let mut cache = ProjectionCache::new();
        let tool = &tools(TWO)[1];
        let projection = Arc::new(project_tool(tool, &options).unwrap());
        let kept = cache.insert(tool, &options, projection.clone());
        assert!(Arc::ptr_eq(&kept, &projection));
        // The same schema again keeps the first; a lookup finds it without projecting.
        let again = cache.insert(
            tool,
            &options,
            Arc::new(project_tool(tool, &options).unwrap()),
        );
        assert!(Arc::ptr_eq(&again, &projection));
        let found = cache
            .get_or_project(tool, &options, counted(&calls))
            .unwrap();
        assert!(Arc::ptr_eq(&found, &projection));
        assert_eq!(calls.get(), 0);
    }
}
