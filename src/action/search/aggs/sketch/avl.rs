//! t-digest 3.3's `AVLGroupTree` over its `IntAVLTree`: the centroids of an `AVLTreeDigest`.
//!
//! Ported node for node (array-backed nodes, the same allocator, rotations and aggregate fixes)
//! because the digest's answers depend on a quirk of it: an update that keeps a centroid's mean
//! (a repeated value, or a merge during compression) changes the centroid's count without fixing
//! the subtree sums above it, so later `head_sum`s see the old counts. OpenSearch's numbers carry
//! that quirk; a plain sorted list would not.

use serde::{Deserialize, Serialize};

pub(super) const NIL: usize = 0;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct GroupTree {
    root: usize,
    parent: Vec<u32>,
    left: Vec<u32>,
    right: Vec<u32>,
    depth: Vec<u8>,
    #[serde(with = "super::java::any_f64::vec")]
    means: Vec<f64>,
    counts: Vec<u64>,
    aggregated: Vec<u64>,
    next_node: usize,
    released: Vec<u32>,
}

impl GroupTree {
    pub(super) fn new() -> GroupTree {
        let cap = 16;
        GroupTree {
            root: NIL,
            parent: vec![0; cap],
            left: vec![0; cap],
            right: vec![0; cap],
            depth: vec![0; cap],
            means: vec![0.0; cap],
            counts: vec![0; cap],
            aggregated: vec![0; cap],
            next_node: NIL + 1,
            released: Vec::new(),
        }
    }

    pub(super) fn size(&self) -> usize {
        self.next_node - self.released.len() - 1
    }

    pub(super) fn mean(&self, n: usize) -> f64 {
        self.means[n]
    }

    pub(super) fn count(&self, n: usize) -> u64 {
        self.counts[n]
    }

    fn l(&self, n: usize) -> usize {
        self.left[n] as usize
    }

    fn r(&self, n: usize) -> usize {
        self.right[n] as usize
    }

    fn p(&self, n: usize) -> usize {
        self.parent[n] as usize
    }

    fn set_l(&mut self, n: usize, v: usize) {
        self.left[n] = v as u32;
    }

    fn set_r(&mut self, n: usize, v: usize) {
        self.right[n] = v as u32;
    }

    fn set_p(&mut self, n: usize, v: usize) {
        self.parent[n] = v as u32;
    }

    pub(super) fn first(&self) -> usize {
        let mut n = self.root;
        if n == NIL {
            return NIL;
        }
        while self.l(n) != NIL {
            n = self.l(n);
        }
        n
    }

    pub(super) fn next(&self, mut n: usize) -> usize {
        let r = self.r(n);
        if r != NIL {
            let mut m = r;
            while self.l(m) != NIL {
                m = self.l(m);
            }
            return m;
        }
        let mut p = self.p(n);
        while p != NIL && n == self.r(p) {
            n = p;
            p = self.p(p);
        }
        p
    }

    pub(super) fn prev(&self, mut n: usize) -> usize {
        let l = self.l(n);
        if l != NIL {
            let mut m = l;
            while self.r(m) != NIL {
                m = self.r(m);
            }
            return m;
        }
        let mut p = self.p(n);
        while p != NIL && n == self.l(p) {
            n = p;
            p = self.p(p);
        }
        p
    }

    /// The last node whose mean is below `x` (`Double.compare`), or NIL.
    pub(super) fn floor(&self, x: f64) -> usize {
        let mut floor = NIL;
        let mut n = self.root;
        while n != NIL {
            if x.total_cmp(&self.means[n]) != std::cmp::Ordering::Greater {
                n = self.l(n);
            } else {
                floor = n;
                n = self.r(n);
            }
        }
        floor
    }

    /// Sum of the counts before `node`, from the (possibly stale) subtree sums.
    pub(super) fn head_sum(&self, node: usize) -> u64 {
        let mut sum = self.aggregated[self.l(node)];
        let mut n = node;
        let mut p = self.p(node);
        while p != NIL {
            if n == self.r(p) {
                sum += self.counts[p] + self.aggregated[self.l(p)];
            }
            n = p;
            p = self.p(n);
        }
        sum
    }

    /// Nodes in order.
    pub(super) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut n = self.first();
        std::iter::from_fn(move || {
            if n == NIL {
                return None;
            }
            let cur = n;
            n = self.next(n);
            Some(cur)
        })
    }

    /// Capacity in nodes (for memory estimates).
    pub(super) fn capacity(&self) -> usize {
        self.parent.len()
    }

    fn new_node(&mut self) -> usize {
        if let Some(n) = self.released.pop() {
            return n as usize;
        }
        let n = self.next_node;
        self.next_node += 1;
        n
    }

    fn resize(&mut self, cap: usize) {
        self.parent.resize(cap, 0);
        self.left.resize(cap, 0);
        self.right.resize(cap, 0);
        self.depth.resize(cap, 0);
        self.means.resize(cap, 0.0);
        self.counts.resize(cap, 0);
        self.aggregated.resize(cap, 0);
    }

    fn fix_aggregates(&mut self, n: usize) {
        let (l, r) = (self.l(n), self.r(n));
        self.depth[n] = 1 + self.depth[l].max(self.depth[r]);
        self.aggregated[n] = self.counts[n] + self.aggregated[l] + self.aggregated[r];
    }

    /// `AVLGroupTree.add`: a new centroid after every one with a mean <= `mean`.
    pub(super) fn add(&mut self, mean: f64, count: u64) {
        if self.root == NIL {
            let n = self.new_node();
            self.root = n;
            self.means[n] = mean;
            self.counts[n] = count;
            self.fix_aggregates(n);
            return;
        }
        let mut node = self.root;
        let mut parent;
        let mut go_left;
        loop {
            go_left = mean < self.means[node];
            parent = node;
            node = if go_left { self.l(node) } else { self.r(node) };
            if node == NIL {
                break;
            }
        }
        let n = self.new_node();
        if n >= self.capacity() {
            self.resize(n + 1 + ((n + 1) >> 3));
        }
        self.means[n] = mean;
        self.counts[n] = count;
        self.set_p(n, parent);
        if go_left {
            self.set_l(parent, n);
        } else {
            self.set_r(parent, n);
        }
        self.rebalance(n);
    }

    /// `AVLGroupTree.update(node, mean, count, data, forceInPlace)`.
    pub(super) fn update(&mut self, node: usize, mean: f64, count: u64, force_in_place: bool) {
        if mean == self.means[node] || force_in_place {
            // In place, subtree sums left as they were.
            self.means[node] = mean;
            self.counts[node] = count;
            return;
        }
        let prev = self.prev(node);
        let next = self.next(node);
        let after_prev = prev == NIL || mean.partial_cmp(&self.means[prev]) != Some(std::cmp::Ordering::Less);
        let before_next = next == NIL || mean < self.means[next];
        if after_prev && before_next {
            self.means[node] = mean;
            self.counts[node] = count;
            let mut n = node;
            while n != NIL {
                self.fix_aggregates(n);
                n = self.p(n);
            }
        } else {
            self.remove(node);
            self.add(mean, count);
        }
    }

    /// `IntAVLTree.remove`.
    pub(super) fn remove(&mut self, node: usize) {
        if node == NIL {
            return;
        }
        if self.l(node) != NIL && self.r(node) != NIL {
            let next = self.next(node);
            self.swap(node, next);
        }
        let parent = self.p(node);
        let mut child = self.l(node);
        if child == NIL {
            child = self.r(node);
        }
        if child == NIL {
            if node == self.root {
                self.root = NIL;
            } else if node == self.l(parent) {
                self.set_l(parent, NIL);
            } else {
                self.set_r(parent, NIL);
            }
        } else {
            if node == self.root {
                self.root = child;
            } else if node == self.l(parent) {
                self.set_l(parent, child);
            } else {
                self.set_r(parent, child);
            }
            self.set_p(child, parent);
        }
        self.set_l(node, NIL);
        self.set_r(node, NIL);
        self.set_p(node, NIL);
        self.released.push(node as u32);
        self.rebalance(parent);
    }

    /// `IntAVLTree.swap`: exchanges the places of two nodes (not their centroids).
    fn swap(&mut self, n1: usize, n2: usize) {
        let p1 = self.p(n1);
        let p2 = self.p(n2);
        if p1 != NIL {
            if n1 == self.l(p1) {
                self.set_l(p1, n2);
            } else {
                self.set_r(p1, n2);
            }
        } else {
            self.root = n2;
        }
        if p2 != NIL {
            if n2 == self.l(p2) {
                self.set_l(p2, n1);
            } else {
                self.set_r(p2, n1);
            }
        } else {
            self.root = n1;
        }
        self.set_p(n1, p2);
        self.set_p(n2, p1);
        let (l1, l2) = (self.l(n1), self.l(n2));
        self.set_l(n1, l2);
        if l2 != NIL {
            self.set_p(l2, n1);
        }
        self.set_l(n2, l1);
        if l1 != NIL {
            self.set_p(l1, n2);
        }
        let (r1, r2) = (self.r(n1), self.r(n2));
        self.set_r(n1, r2);
        if r2 != NIL {
            self.set_p(r2, n1);
        }
        self.set_r(n2, r1);
        if r1 != NIL {
            self.set_p(r1, n2);
        }
        self.depth.swap(n1, n2);
    }

    fn balance_factor(&self, n: usize) -> i32 {
        self.depth[self.l(n)] as i32 - self.depth[self.r(n)] as i32
    }

    fn rebalance(&mut self, node: usize) {
        let mut n = node;
        while n != NIL {
            let p = self.p(n);
            self.fix_aggregates(n);
            match self.balance_factor(n) {
                -2 => {
                    let r = self.r(n);
                    if self.balance_factor(r) == 1 {
                        self.rotate_right(r);
                    }
                    self.rotate_left(n);
                }
                2 => {
                    let l = self.l(n);
                    if self.balance_factor(l) == -1 {
                        self.rotate_left(l);
                    }
                    self.rotate_right(n);
                }
                _ => {}
            }
            n = p;
        }
    }

    fn rotate_left(&mut self, n: usize) {
        let r = self.r(n);
        let lr = self.l(r);
        self.set_r(n, lr);
        if lr != NIL {
            self.set_p(lr, n);
        }
        let p = self.p(n);
        self.set_p(r, p);
        if p == NIL {
            self.root = r;
        } else if self.l(p) == n {
            self.set_l(p, r);
        } else {
            self.set_r(p, r);
        }
        self.set_l(r, n);
        self.set_p(n, r);
        self.fix_aggregates(n);
        let pn = self.p(n);
        self.fix_aggregates(pn);
    }

    fn rotate_right(&mut self, n: usize) {
        let l = self.l(n);
        let rl = self.r(l);
        self.set_l(n, rl);
        if rl != NIL {
            self.set_p(rl, n);
        }
        let p = self.p(n);
        self.set_p(l, p);
        if p == NIL {
            self.root = l;
        } else if self.r(p) == n {
            self.set_r(p, l);
        } else {
            self.set_l(p, l);
        }
        self.set_r(l, n);
        self.set_p(n, l);
        self.fix_aggregates(n);
        let pn = self.p(n);
        self.fix_aggregates(pn);
    }
}
