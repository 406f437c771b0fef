//! Which tools of one request are sent `strict: true`.
//!
//! Anthropic's strict tool use limits a whole request, not one tool: at most 20 strict tools, 24
//! optional properties and 16 properties typed by `anyOf` or a type list across all of them
//! (providers.md §1c). Tailoring brings each tool's schema within those counts on its own; a
//! manifest of 30 tools, or of three tools with ten optional parameters each, still makes a
//! request the provider refuses when every tool is sent strict. The plan chooses the strict
//! tools so that the request fits, and sends the others non-strict: the same `input_schema`,
//! which ordinary tool use takes, without the grammar that strict mode adds.
//!
//! The choice is exact: the most strict tools the budgets allow, and among the choices of that
//! size the one that keeps the earliest tools of the manifest (the order the user controls). A
//! tool whose tailored schema strict mode refuses anyway is sent non-strict whatever the others.
//! The budgets are the profile's tool-set lint rules and the counts are theirs, so that the
//! plan, the lint and tailoring count alike.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::{Check, Counted, Profile};
use crate::projection::Unresolved;

/// What one request may hold across its strict tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budgets {
    pub tools: usize,
    pub optional: usize,
    pub unions: usize,
}

impl Budgets {
    /// The profile's request-wide limits, from its tool-set rules; `None` for a profile that has
    /// none (each of its tools is sent as the profile has it).
    pub fn of(profile: Profile) -> Option<Budgets> {
        let max = |wanted: Counted| {
            profile.rules().iter().find_map(|r| match r.applies {
                Check::ToolSet { counted, max } if counted == wanted => Some(max),
                _ => None,
            })
        };
        Some(Budgets {
            tools: max(Counted::Tools)?,
            optional: max(Counted::OptionalProperties)?,
            unions: max(Counted::UnionProperties)?,
        })
    }

    fn max(&self, budget: Budget) -> usize {
        match budget {
            Budget::StrictTools => self.tools,
            Budget::OptionalProperties => self.optional,
            Budget::UnionProperties => self.unions,
        }
    }
}

/// What one tool's schema takes of the budgets, counted as the tool-set rules count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Demand {
    /// Properties not listed in their object's `required`, in every object of the schema.
    pub optional: usize,
    /// Properties whose schema is an `anyOf` or has a type list.
    pub unions: usize,
}

impl Demand {
    pub fn of(schema: &Value) -> Demand {
        let [optional, unions] = super::checks::tool_set_counts(
            schema,
            [Counted::OptionalProperties, Counted::UnionProperties],
        );
        Demand { optional, unions }
    }
}

/// A budget of the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Budget {
    StrictTools,
    OptionalProperties,
    UnionProperties,
}

impl Budget {
    const ALL: [Budget; 3] = [
        Budget::StrictTools,
        Budget::OptionalProperties,
        Budget::UnionProperties,
    ];

    fn counted(self, tools: usize, demand: Demand) -> usize {
        match self {
            Budget::StrictTools => tools,
            Budget::OptionalProperties => demand.optional,
            Budget::UnionProperties => demand.unions,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Budget::StrictTools => "strict tools",
            Budget::OptionalProperties => "optional properties",
            Budget::UnionProperties => "properties typed by `anyOf` or a type list",
        }
    }
}

/// A budget a tool would cross: the total it would make, and the most the request allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Over {
    pub budget: Budget,
    pub total: usize,
    pub max: usize,
}

impl fmt::Display for Over {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} (at most {})",
            self.total,
            self.budget.noun(),
            self.max
        )
    }
}

/// Why strict mode refuses a tool's schema whatever else the request holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The profile's lint rule that still fires; `no-schema` when there is no tailored schema.
    pub rule: &'static str,
    /// Where, in the tailored schema.
    pub pointer: String,
    pub why: String,
}

/// One tool as the plan sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// Strict mode takes its schema, which needs this much of the budgets.
    Fits(Demand),
    Refused(Refusal),
}

impl Candidate {
    /// A tool's schema tailored for `profile`, with what tailoring left unresolved: refused when
    /// some of that is not about the request-wide counts (which the plan settles), else its
    /// counts.
    pub fn of(profile: Profile, schema: &Value, unresolved: &[Unresolved]) -> Candidate {
        match unresolved
            .iter()
            .find(|u| !is_request_rule(profile, u.rule))
        {
            Some(u) => Candidate::Refused(Refusal {
                rule: u.rule,
                pointer: u.pointer.clone(),
                why: u.why.clone(),
            }),
            None => Candidate::Fits(Demand::of(schema)),
        }
    }

    /// A tool without a tailored schema (its projection failed).
    pub fn missing(why: &str) -> Candidate {
        Candidate::Refused(Refusal {
            rule: "no-schema",
            pointer: String::new(),
            why: why.to_owned(),
        })
    }

    fn demand(&self) -> Option<Demand> {
        match self {
            Candidate::Fits(d) => Some(*d),
            Candidate::Refused(_) => None,
        }
    }
}

/// Whether `profile`'s rule `id` counts across the tools of a request (the limits a plan
/// settles).
pub fn is_request_rule(profile: Profile, id: &str) -> bool {
    profile
        .rule(id)
        .is_some_and(|r| matches!(r.applies, Check::ToolSet { .. }))
}

/// Why a tool is sent non-strict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WhyNot {
    /// Strict mode refuses its tailored schema.
    Refused(Refusal),
    /// On its own it needs more than a request allows.
    TooLarge { over: Vec<Over> },
    /// The strict tools chosen leave no room for it: with it, these budgets would be crossed.
    NoRoom { over: Vec<Over> },
}

impl fmt::Display for WhyNot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |over: &[Over]| {
            over.iter()
                .map(Over::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            WhyNot::Refused(r) if r.pointer.is_empty() => {
                write!(f, "strict mode refuses it (`{}`): {}", r.rule, r.why)
            }
            WhyNot::Refused(r) => write!(
                f,
                "strict mode refuses #{} (`{}`): {}",
                r.pointer, r.rule, r.why
            ),
            WhyNot::TooLarge { over } => write!(f, "on its own it has {}", list(over)),
            WhyNot::NoRoom { over } => write!(
                f,
                "the request has room for no more: with it, {}",
                list(over)
            ),
        }
    }
}

/// How one tool is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub strict: bool,
    /// What its schema takes of the budgets; `None` when strict mode refuses it (not counted).
    pub demand: Option<Demand>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<WhyNot>,
}

impl Decision {
    /// `strict`, or `non-strict: why`.
    pub fn label(&self) -> String {
        match &self.why_not {
            None => "strict".to_owned(),
            Some(why) => format!("non-strict: {why}"),
        }
    }
}

/// The strict tools of one request, and why the others are not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub budgets: Budgets,
    /// One per candidate, in their order.
    pub decisions: Vec<Decision>,
    /// What the strict tools take together.
    pub used: Demand,
}

impl Plan {
    pub fn strict_count(&self) -> usize {
        self.decisions.iter().filter(|d| d.strict).count()
    }

    /// The request as a whole, in the sentence every front end shows (see [`request_sentence`]).
    pub fn summary(&self) -> String {
        request_sentence(
            self.strict_count(),
            self.decisions.len(),
            self.budgets,
            self.used,
        )
    }
}

/// `one request takes 20 of the 22 tools strict (at most …; these take …)`: how many tools of a
/// request go strict and against which budgets. One sentence, so that `lint`, `project` and the
/// inspector say the same thing of the same plan.
pub fn request_sentence(strict: usize, tools: usize, budgets: Budgets, used: Demand) -> String {
    format!(
        "one request takes {strict} of the {tools} tools strict (at most {} strict tools, {} optional and {} union-typed properties across them; these take {}, {})",
        budgets.tools, budgets.optional, budgets.unions, used.optional, used.unions,
    )
}

/// Chooses the strict tools of one request (see the module's documentation).
pub fn plan(budgets: Budgets, candidates: &[Candidate]) -> Plan {
    let demands: Vec<Option<Demand>> = candidates.iter().map(Candidate::demand).collect();
    let chosen = choose(budgets, &demands);
    let used = demands
        .iter()
        .zip(&chosen)
        .filter(|(_, c)| **c)
        .filter_map(|(d, _)| *d)
        .fold(Demand::default(), |a, d| Demand {
            optional: a.optional + d.optional,
            unions: a.unions + d.unions,
        });
    let strict_tools = chosen.iter().filter(|c| **c).count();
    let decisions = candidates
        .iter()
        .zip(&chosen)
        .map(|(candidate, &strict)| Decision {
            strict,
            demand: candidate.demand(),
            why_not: (!strict).then(|| why_not(budgets, candidate, strict_tools, used)),
        })
        .collect();
    Plan {
        budgets,
        decisions,
        used,
    }
}

/// Why a tool left out of the strict ones is: refused, too large alone, or no room beside the
/// chosen (a tool that fits beside them would have been chosen, so some budget is crossed).
fn why_not(budgets: Budgets, candidate: &Candidate, strict_tools: usize, used: Demand) -> WhyNot {
    let demand = match candidate {
        Candidate::Refused(r) => return WhyNot::Refused(r.clone()),
        Candidate::Fits(d) => *d,
    };
    let crossed = |tools: usize, demand: Demand| -> Vec<Over> {
        Budget::ALL
            .into_iter()
            .map(|budget| Over {
                budget,
                total: budget.counted(tools, demand),
                max: budgets.max(budget),
            })
            .filter(|o| o.total > o.max)
            .collect()
    };
    let alone = crossed(1, demand);
    if !alone.is_empty() {
        return WhyNot::TooLarge { over: alone };
    }
    let with = Demand {
        optional: used.optional + demand.optional,
        unions: used.unions + demand.unions,
    };
    WhyNot::NoRoom {
        over: crossed(strict_tools + 1, with),
    }
}

/// The most tools whose demands fit the budgets together, keeping the earliest tools among the
/// choices of that size; `None` demands are never chosen.
///
/// `most[i][o][u]` is the most tools among `demands[i..]` that fit in `o` optional and `u` union
/// properties (a knapsack over two small capacities). The cap on the number of tools only trims
/// the target: fewer tools fit wherever more do, since leaving one out frees its share. The
/// choice then walks the tools in order and keeps each that still lets the target be reached.
fn choose(budgets: Budgets, demands: &[Option<Demand>]) -> Vec<bool> {
    let (opt_cap, union_cap) = (budgets.optional, budgets.unions);
    let width = (opt_cap + 1) * (union_cap + 1);
    let cell = |i: usize, o: usize, u: usize| i * width + o * (union_cap + 1) + u;
    let fits =
        |d: Option<Demand>, o: usize, u: usize| d.filter(|d| d.optional <= o && d.unions <= u);
    let n = demands.len();
    let mut most = vec![0u32; (n + 1) * width];
    for i in (0..n).rev() {
        for o in 0..=opt_cap {
            for u in 0..=union_cap {
                let skip = most[cell(i + 1, o, u)];
                let take = fits(demands[i], o, u)
                    .map_or(0, |d| 1 + most[cell(i + 1, o - d.optional, u - d.unions)]);
                most[cell(i, o, u)] = skip.max(take);
            }
        }
    }
    let mut need = (most[cell(0, opt_cap, union_cap)] as usize).min(budgets.tools);
    let (mut o, mut u) = (opt_cap, union_cap);
    let mut chosen = vec![false; n];
    for (i, demand) in demands.iter().enumerate() {
        if need == 0 {
            break;
        }
        if let Some(d) = fits(*demand, o, u)
            && 1 + most[cell(i + 1, o - d.optional, u - d.unions)] as usize >= need
        {
            chosen[i] = true;
            need -= 1;
            o -= d.optional;
            u -= d.unions;
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    const ANTHROPIC: Budgets = Budgets {
        tools: 20,
        optional: 24,
        unions: 16,
    };

    fn fits(optional: usize, unions: usize) -> Candidate {
        Candidate::Fits(Demand { optional, unions })
    }

    fn strict(plan: &Plan) -> Vec<usize> {
        (0..plan.decisions.len())
            .filter(|i| plan.decisions[*i].strict)
            .collect()
    }

    #[test]
    fn the_budgets_are_the_anthropic_strict_rules() {
        assert_eq!(Budgets::of(Profile::AnthropicStrict), Some(ANTHROPIC));
        assert_eq!(Budgets::of(Profile::OpenAiStrict), None);
        assert_eq!(Budgets::of(Profile::Anthropic), None);
    }

    #[test]
    fn the_counts_are_the_lints() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "c": {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}, "required": ["x"]}
            },
            "required": ["a"]
        });
        assert_eq!(
            Demand::of(&schema),
            Demand {
                optional: 3,
                unions: 2
            }
        );
    }

    #[test]
    fn twenty_five_tools_send_the_first_twenty_strict() {
        let candidates = vec![fits(0, 0); 25];
        let plan = plan(ANTHROPIC, &candidates);
        assert_eq!(strict(&plan), (0..20).collect::<Vec<_>>());
        let over = Over {
            budget: Budget::StrictTools,
            total: 21,
            max: 20,
        };
        for d in &plan.decisions[20..] {
            assert_eq!(d.why_not, Some(WhyNot::NoRoom { over: vec![over] }));
        }
        assert_eq!(
            plan.decisions[24].label(),
            "non-strict: the request has room for no more: with it, 21 strict tools (at most 20)"
        );
    }

    /// Taking the tools in order would send one: the first takes 20 of the 24 optional
    /// properties and no other fits beside it. Leaving it out sends four.
    #[test]
    fn the_most_tools_win_over_the_first_ones() {
        let candidates = [fits(20, 0), fits(5, 0), fits(5, 0), fits(5, 0), fits(5, 0)];
        let plan = plan(ANTHROPIC, &candidates);
        assert_eq!(strict(&plan), vec![1, 2, 3, 4]);
        assert_eq!(
            plan.used,
            Demand {
                optional: 20,
                unions: 0
            }
        );
        assert_eq!(
            plan.decisions[0].label(),
            "non-strict: the request has room for no more: with it, 40 optional properties (at most 24)"
        );
    }

    #[test]
    fn refused_and_oversized_tools_are_sent_non_strict_with_the_reason() {
        let refused = Candidate::Refused(Refusal {
            rule: "recursive-ref",
            pointer: "/properties/n".into(),
            why: "a recursive schema".into(),
        });
        let candidates = [refused, fits(30, 17), fits(24, 16)];
        let plan = plan(ANTHROPIC, &candidates);
        assert_eq!(strict(&plan), vec![2]);
        assert_eq!(
            plan.decisions[0].label(),
            "non-strict: strict mode refuses #/properties/n (`recursive-ref`): a recursive schema"
        );
        assert_eq!(plan.decisions[0].demand, None);
        assert_eq!(
            plan.decisions[1].label(),
            "non-strict: on its own it has 30 optional properties (at most 24), 17 properties typed by `anyOf` or a type list (at most 16)"
        );
    }

    /// Unresolved places about the request-wide counts are the plan's to settle; any other
    /// keeps the tool from strict mode.
    #[test]
    fn only_schema_problems_refuse_a_candidate() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let unresolved = |rule: &'static str| Unresolved {
            pointer: String::new(),
            rule,
            why: "w".into(),
        };
        assert_eq!(
            Candidate::of(
                Profile::AnthropicStrict,
                &schema,
                &[unresolved("limit-optional")]
            ),
            fits(1, 0)
        );
        assert!(matches!(
            Candidate::of(
                Profile::AnthropicStrict,
                &schema,
                &[unresolved("limit-optional"), unresolved("recursive-ref")]
            ),
            Candidate::Refused(Refusal {
                rule: "recursive-ref",
                ..
            })
        ));
    }

    /// Every subset, the largest that fits, the earliest tools first among those.
    fn brute_force(budgets: Budgets, demands: &[Option<Demand>]) -> Vec<bool> {
        let n = demands.len();
        let mut best: Option<(usize, Vec<bool>)> = None;
        for mask in 0u32..(1 << n) {
            let set: Vec<bool> = (0..n).map(|i| mask & (1 << i) != 0).collect();
            let mut used = (0, 0, 0);
            let mut ok = true;
            for (i, d) in demands.iter().enumerate() {
                if !set[i] {
                    continue;
                }
                match d {
                    Some(d) => {
                        used = (used.0 + 1, used.1 + d.optional, used.2 + d.unions);
                    }
                    None => ok = false,
                }
            }
            ok &= used.0 <= budgets.tools && used.1 <= budgets.optional && used.2 <= budgets.unions;
            if !ok {
                continue;
            }
            // `true > false`: the greater list keeps the earlier tools.
            let better = best
                .as_ref()
                .is_none_or(|(count, b)| (used.0, &set) > (*count, b));
            if better {
                best = Some((used.0, set));
            }
        }
        best.map(|(_, set)| set).unwrap_or_default()
    }

    fn candidate() -> impl Strategy<Value = Option<Demand>> {
        prop_oneof![
            1 => Just(None),
            5 => (0usize..8, 0usize..6).prop_map(|(optional, unions)| Some(Demand { optional, unions })),
        ]
    }

    proptest! {
        #[test]
        fn the_choice_is_the_brute_force_one(
            tools in 0usize..7,
            optional in 0usize..13,
            unions in 0usize..9,
            demands in proptest::collection::vec(candidate(), 0..10),
        ) {
            let budgets = Budgets { tools, optional, unions };
            let candidates: Vec<Candidate> = demands
                .iter()
                .map(|d| match d {
                    Some(d) => Candidate::Fits(*d),
                    None => Candidate::missing("no schema"),
                })
                .collect();
            let plan = plan(budgets, &candidates);
            let chosen: Vec<bool> = plan.decisions.iter().map(|d| d.strict).collect();
            prop_assert_eq!(&chosen, &brute_force(budgets, &demands));
            prop_assert!(plan.strict_count() <= budgets.tools);
            prop_assert!(plan.used.optional <= budgets.optional && plan.used.unions <= budgets.unions);
            // Every reason names exactly the budgets the tool crosses.
            for (d, demand) in plan.decisions.iter().zip(&demands) {
                let (Some(why), Some(demand)) = (&d.why_not, demand) else { continue };
                let (tools, total) = match why {
                    WhyNot::TooLarge { .. } => (1, *demand),
                    WhyNot::NoRoom { .. } => (
                        plan.strict_count() + 1,
                        Demand {
                            optional: plan.used.optional + demand.optional,
                            unions: plan.used.unions + demand.unions,
                        },
                    ),
                    WhyNot::Refused(_) => unreachable!("only refused candidates are refused"),
                };
                let over = match why {
                    WhyNot::TooLarge { over } | WhyNot::NoRoom { over } => over,
                    WhyNot::Refused(_) => unreachable!(),
                };
                prop_assert!(!over.is_empty());
                let expected: Vec<Budget> = Budget::ALL
                    .into_iter()
                    .filter(|b| b.counted(tools, total) > budgets.max(*b))
                    .collect();
                let named: Vec<Budget> = over.iter().map(|o| o.budget).collect();
                prop_assert_eq!(named, expected);
            }
        }
    }
}
