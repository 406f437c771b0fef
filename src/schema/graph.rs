//! Graph algorithms over schema references.

/// Tarjan's algorithm without recursion (a document's reference chains may be long): the
/// component number of every vertex. Components are numbered in reverse topological order:
/// every edge leaving a component goes to a component with a smaller number.
pub fn strongly_connected(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack = Vec::new();
    let mut counter = 0;
    let mut components = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (vertex, next edge to look at)
        let mut work = vec![(root, 0)];
        while let Some(&mut (v, ref mut next)) = work.last_mut() {
            if *next == 0 && index[v] == UNSEEN {
                index[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(*next) {
                *next += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_group_cycles_only_and_come_sinks_first() {
        // 0 → 1 → 2 → 0, 2 → 3, 4 → 4, 4 → 0
        let c = strongly_connected(&[vec![1], vec![2], vec![0, 3], vec![], vec![4, 0]]);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert_ne!(c[2], c[3]);
        assert_ne!(c[3], c[4]);
        // Every edge between components goes to a smaller number.
        assert!(c[3] < c[2] && c[0] < c[4]);
    }
}
