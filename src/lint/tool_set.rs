//! What a tool's verdicts owe to the other tools sent with it.
//!
//! Some rules read the whole tool list of a request, not one schema: Anthropic refuses a
//! request whose tools share a name ("Tool names must be unique."), and strict tool use limits
//! the strict tools of a request (see [`strict_plan`](super::strict_plan)). A tool linted on its
//! own never meets those rules, so a front end that shows one tool at a time would say
//! "accepted" where the provider answers 400. A [`ToolSet`] is those facts, made once for the
//! tools of a manifest: per tool and form, the findings of the tool-list rules (as `lint` of
//! the whole manifest reports them), and how the request plan sends each tool. The report
//! merges them into one tool's lint ([`report::lint_forms_in`](super::report::lint_forms_in)).

use serde_json::Value;

use super::checks::{self, SchemaCx, ToolCx};
use super::report::Form;
use super::strict_plan::{self, Budgets, Candidate, Decision, Demand, Plan};
use super::{Check, Counted, Finding, LintRule, Profile, Subject};

/// One tool of the request, as the tool-list rules read it.
#[derive(Debug, Clone)]
pub struct Member<'a> {
    /// `None`: no name to check (a bare schema).
    pub name: Option<&'a str>,
    /// Per form ([`Form::ALL`] order): `None` when there is no such schema (its projection
    /// failed), else what it takes of the request-wide counts (zero where the profile counts
    /// nothing across tools).
    pub forms: [Option<Demand>; 3],
    /// How the request plan sees its tailored schema (profiles that limit a request; `None`:
    /// there is none).
    pub candidate: Option<Candidate>,
}

/// The tool-list facts of one request, for one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSet {
    pub profile: Profile,
    /// Per tool, per form: the tool-list rules' findings on it, in table order.
    findings: Vec<[Vec<Finding>; 3]>,
    /// Per tool, per form: its place among the tools that have that form (what the
    /// provider's messages number it), `None` where it has none.
    places: Vec<[Option<usize>; 3]>,
    /// Which tools go strict, for a profile that limits whole requests; `None` otherwise, and
    /// when the tools' tailored schemas were not looked at ([`ToolSet::of_names`]).
    pub plan: Option<Plan>,
}

/// Whether `rule` reads the tool list rather than one tool: its findings on a tool depend on
/// the others.
pub fn is_tool_list_rule(rule: &LintRule) -> bool {
    matches!(rule.applies, Check::UniqueToolNames | Check::ToolSet { .. })
}

/// Whether `profile` counts something across the tools of a request (then a [`ToolSet`] needs
/// every tool's counts and tailored schema, not only its name).
pub fn counts_across_tools(profile: Profile) -> bool {
    profile
        .rules()
        .iter()
        .any(|r| matches!(r.applies, Check::ToolSet { .. }))
}

impl ToolSet {
    /// The facts of a request of `members`, in their order.
    pub fn new(profile: Profile, members: &[Member<'_>]) -> ToolSet {
        let mut findings: Vec<[Vec<(usize, Finding)>; 3]> =
            members.iter().map(|_| Default::default()).collect();
        let mut places: Vec<[Option<usize>; 3]> = vec![[None; 3]; members.len()];
        // Tool-list rules read names and counts, never a schema's nodes.
        let null = Value::Null;
        let no_schema = SchemaCx::new(&null);
        for form in Form::ALL {
            let present: Vec<(usize, &Member<'_>, Demand)> = members
                .iter()
                .enumerate()
                .filter_map(|(i, m)| m.forms[form as usize].map(|d| (i, m, d)))
                .collect();
            for (k, (i, _, _)) in present.iter().enumerate() {
                places[*i][form as usize] = Some(k);
            }
            let tools: Vec<ToolCx<'_>> = present
                .iter()
                .map(|(_, m, _)| ToolCx {
                    name: m.name,
                    schema: &no_schema,
                })
                .collect();
            for (rank, rule) in profile.rules().iter().enumerate() {
                let hits = match rule.applies {
                    Check::UniqueToolNames => checks::tool_hits(&rule.applies, &tools),
                    // On the tailored form the request-wide counts are the plan's to settle:
                    // it sends strict only tools whose counts fit together.
                    Check::ToolSet { .. } if form == Form::Tailored => continue,
                    Check::ToolSet { counted, max } => checks::crossing(
                        present.iter().map(|(_, _, d)| counted_in(counted, *d)),
                        max,
                    ),
                    _ => continue,
                };
                for (k, hit) in hits {
                    let (i, member, _) = present[k];
                    let subject = Subject {
                        name: member.name,
                        schema: &null,
                    };
                    let found = super::finding(profile, rule, &hit, &subject, k, &no_schema);
                    findings[i][form as usize].push((rank, found));
                }
            }
        }
        let plan = Budgets::of(profile)
            .filter(|_| members.iter().any(|m| m.candidate.is_some()))
            .map(|budgets| {
                let candidates: Vec<Candidate> = members
                    .iter()
                    .map(|m| {
                        m.candidate
                            .clone()
                            .unwrap_or_else(|| Candidate::missing("no tailored schema"))
                    })
                    .collect();
                strict_plan::plan(budgets, &candidates)
            });
        ToolSet {
            profile,
            findings: findings
                .into_iter()
                .map(|forms| {
                    forms.map(|mut list| {
                        list.sort_by_key(|(rank, _)| *rank);
                        list.into_iter().map(|(_, f)| f).collect()
                    })
                })
                .collect(),
            places,
            plan,
        }
    }

    /// The facts that need only the tools' names (unique names), every form of every tool
    /// taken to exist; no counts across tools and no plan. For warning of what the provider
    /// refuses in a request, where the plan is made apart (`project`, `check`).
    pub fn of_names(profile: Profile, names: &[Option<&str>]) -> ToolSet {
        let members: Vec<Member<'_>> = names
            .iter()
            .map(|&name| Member {
                name,
                forms: [Some(Demand::default()); 3],
                candidate: None,
            })
            .collect();
        let mut set = ToolSet::new(profile, &members);
        // The counts were not made: what they would find is not known, so nothing is said.
        for forms in &mut set.findings {
            for list in forms.iter_mut() {
                list.retain(|f| {
                    profile
                        .rule(f.rule)
                        .is_some_and(|r| !matches!(r.applies, Check::ToolSet { .. }))
                });
            }
        }
        set
    }

    /// Tools in the request.
    pub fn len(&self) -> usize {
        self.findings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.findings.is_empty()
    }

    /// The tool-list findings on tool `tool`'s `form`, in table order.
    pub fn findings(&self, tool: usize, form: Form) -> &[Finding] {
        self.findings
            .get(tool)
            .map_or(&[][..], |f| &f[form as usize])
    }

    /// Tool `tool`'s place among the tools that have `form` (the provider numbers the tools
    /// it receives), `None` where it has no such schema.
    pub fn place(&self, tool: usize, form: Form) -> Option<usize> {
        self.places.get(tool)?[form as usize]
    }

    /// How the request plan sends tool `tool` (profiles that limit a request).
    pub fn sent(&self, tool: usize) -> Option<&Decision> {
        self.plan.as_ref()?.decisions.get(tool)
    }
}

fn counted_in(counted: Counted, demand: Demand) -> usize {
    match counted {
        Counted::Tools => 1,
        Counted::OptionalProperties => demand.optional,
        Counted::UnionProperties => demand.unions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_name_is_found_on_every_form_of_the_later_tool() {
        let set = ToolSet::of_names(Profile::Anthropic, &[Some("a"), Some("b"), Some("a")]);
        for form in Form::ALL {
            assert!(set.findings(0, form).is_empty());
            assert!(set.findings(1, form).is_empty());
            let found = set.findings(2, form);
            assert_eq!(found.len(), 1, "{form}: {found:?}");
            assert_eq!(found[0].rule, "tool-name-unique");
            assert!(found[0].is_error());
            assert_eq!(
                found[0].message,
                "Tool name `a` is already used by tool #0 of this list."
            );
        }
        assert_eq!(set.plan, None);
        // A profile without the rule finds nothing.
        let set = ToolSet::of_names(Profile::OpenAi, &[Some("a"), Some("a")]);
        assert!(set.findings(1, Form::Original).is_empty());
    }

    #[test]
    fn counts_cross_once_and_the_tailored_form_is_left_to_the_plan() {
        let fits = |optional| Demand {
            optional,
            unions: 0,
        };
        let members: Vec<Member<'_>> = (0..3)
            .map(|_| Member {
                name: Some("t"),
                forms: [Some(fits(10)); 3],
                candidate: Some(Candidate::Fits(fits(10))),
            })
            .collect();
        let set = ToolSet::new(Profile::AnthropicStrict, &members);
        let rules = |i, form| -> Vec<&'static str> {
            set.findings(i, form).iter().map(|f| f.rule).collect()
        };
        assert_eq!(rules(0, Form::Original), Vec::<&str>::new());
        assert_eq!(
            rules(2, Form::Original),
            ["tool-name-unique", "limit-optional"]
        );
        assert_eq!(
            set.findings(2, Form::Original)[1].message,
            "30 optional properties across the strict tools so far; strict tool use allows 24."
        );
        assert_eq!(rules(2, Form::Tailored), ["tool-name-unique"]);
        let plan = set.plan.as_ref().expect("a plan");
        assert_eq!(plan.strict_count(), 2);
        assert!(!set.sent(2).unwrap().strict);
    }
}
