//! The seed's table as a test, and round-trip properties of the distribution.

use super::*;
use proptest::prelude::*;

const B: usize = 3;
const GRID: usize = 3;
const SRC: usize = 1;
const X: i64 = -1; // an empty cell of the table

fn opt(v: Option<usize>) -> i64 {
    v.map_or(X, |v| v as i64)
}

#[test]
fn seed_table_1d() {
    let g_tile = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5];
    let rank = [1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2, 0];
    let local_el: [[i64; 16]; 3] = [
        [X, X, X, X, X, X, 0, 1, 2, X, X, X, X, X, X, 3],
        [0, 1, 2, X, X, X, X, X, X, 3, 4, 5, X, X, X, X],
        [X, X, X, 0, 1, 2, X, X, X, X, X, X, 3, 4, 5, X],
    ];
    let local_tile: [[i64; 16]; 3] = [
        [X, X, X, X, X, X, 0, 0, 0, X, X, X, X, X, X, 1],
        [0, 0, 0, X, X, X, X, X, X, 1, 1, 1, X, X, X, X],
        [X, X, X, 0, 0, 0, X, X, X, X, X, X, 1, 1, 1, X],
    ];
    let next_local_tile: [[usize; 16]; 3] = [
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1],
        [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2],
        [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2],
    ];
    let tile_el = [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0];
    for e in 0..16 {
        let t = util::tile_from_element(e, B);
        assert_eq!(t, g_tile[e], "global tile of {e}");
        assert_eq!(util::rank_global_tile(t, GRID, SRC), rank[e], "rank of {e}");
        assert_eq!(util::tile_element_from_element(e, B), tile_el[e]);
        for r in 0..GRID {
            let le = util::local_element_from_global_element(e, B, GRID, r, SRC);
            assert_eq!(opt(le), local_el[r][e], "local element of {e} on {r}");
            let lt = util::local_tile_from_global_tile(t, GRID, r, SRC);
            assert_eq!(opt(lt), local_tile[r][e], "local tile of {e} on {r}");
            let next = util::next_local_tile_from_global_tile(t, GRID, r, SRC);
            assert_eq!(next, next_local_tile[r][e], "next local tile of {e} on {r}");
        }
    }
}

#[test]
fn seed_table_through_the_2d_distribution() {
    // The table along rows, with one column of ranks.
    let d = Distribution::new(
        GlobalElementSize::new(16, 1),
        TileElementSize::new(B, 1),
        GridSize::new(GRID, 1),
        RankIndex2D::new(SRC, 0),
    )
    .unwrap();
    let e = GlobalElementIndex::new(9, 0);
    assert_eq!(d.global_tile_index(e), GlobalTileIndex::new(3, 0));
    assert_eq!(
        d.rank_global_tile(GlobalTileIndex::new(3, 0)),
        RankIndex2D::new(1, 0)
    );
    assert_eq!(
        d.local_element_index(e, RankIndex2D::new(1, 0)),
        Some(LocalElementIndex::new(3, 0))
    );
    assert_eq!(d.local_element_index(e, RankIndex2D::new(0, 0)), None);
    assert_eq!(
        d.next_local_tile_index(GlobalTileIndex::new(4, 0), RankIndex2D::new(1, 0)),
        LocalTileIndex::new(2, 0)
    );
    // 16 elements: rank 0 holds tiles 2 and 5 (one element), rank 1 tiles 0 and 3, rank 2 tiles 1 and 4.
    let sizes: Vec<usize> = (0..3)
        .map(|r| d.local_size(RankIndex2D::new(r, 0)).rows())
        .collect();
    assert_eq!(sizes, vec![4, 6, 6]);
}

#[test]
fn bad_distributions_are_errors() {
    let size = GlobalElementSize::new(4, 4);
    let block = TileElementSize::new(2, 2);
    let grid = GridSize::new(2, 2);
    let e = Distribution::new(
        size,
        TileElementSize::new(0, 2),
        grid,
        RankIndex2D::new(0, 0),
    );
    assert!(matches!(e, Err(DistributionError::EmptyBlock(_))));
    let e = Distribution::new(size, block, GridSize::new(2, 0), RankIndex2D::new(0, 0));
    assert!(matches!(e, Err(DistributionError::EmptyGrid(_))));
    let e = Distribution::new(size, block, grid, RankIndex2D::new(2, 0));
    assert!(matches!(e, Err(DistributionError::SourceOutsideGrid(..))));
}

#[test]
fn tile_layout_offsets() {
    let l = LayoutInfo::tile_layout(LocalElementSize::new(5, 7), TileElementSize::new(2, 3));
    assert_eq!(
        (l.ld_tile(), l.tile_offset_row(), l.tile_offset_col()),
        (2, 6, 18)
    );
    assert_eq!(l.nr_tiles(), LocalTileSize::new(3, 3));
    assert_eq!(
        l.tile_size_of(LocalTileIndex::new(2, 2)),
        TileElementSize::new(1, 1)
    );
    assert_eq!(
        l.element_offset(LocalTileIndex::new(1, 2), TileElementIndex::new(1, 2)),
        6 + 36 + 1 + 4
    );
    // the last tile (1x1) starts at 2*6 + 2*18 = 48 and takes one element
    assert_eq!(l.min_mem_size(), 49);
}

#[test]
fn padded_tile_layout_starts_every_tile_at_a_multiple_of_the_alignment() {
    let (size, block) = (LocalElementSize::new(5, 7), TileElementSize::new(2, 3));
    let l = LayoutInfo::padded_tile_layout(size, block, 64);
    assert_eq!(
        (l.ld_tile(), l.tile_offset_row(), l.tile_offset_col()),
        (2, 64, 192)
    );
    for j in 0..3 {
        for i in 0..3 {
            assert_eq!(l.tile_offset(LocalTileIndex::new(i, j)) % 64, 0);
        }
    }
    // the last tile (1x1) starts at 2*64 + 2*192 and takes one element
    assert_eq!(l.min_mem_size(), 2 * 64 + 2 * 192 + 1);
    // an alignment the tile already meets pads nothing
    assert_eq!(
        LayoutInfo::padded_tile_layout(size, block, 2),
        LayoutInfo::tile_layout(size, block)
    );
}

#[test]
fn col_major_layout_offsets() {
    let l = LayoutInfo::col_major(LocalElementSize::new(5, 7), TileElementSize::new(2, 3), 6);
    assert_eq!(
        (l.ld_tile(), l.tile_offset_row(), l.tile_offset_col()),
        (6, 2, 18)
    );
    // element (i, j) of the local matrix lives at i + j * ld
    let off = l.element_offset(LocalTileIndex::new(2, 1), TileElementIndex::new(0, 2));
    assert_eq!(off, 4 + 5 * 6);
    assert_eq!(l.min_mem_size(), 4 + 6 * 6 + 1);
}

fn dist_strategy() -> impl Strategy<Value = Distribution> {
    (
        1usize..40,
        1usize..40,
        1usize..9,
        1usize..9,
        1usize..5,
        1usize..5,
    )
        .prop_flat_map(|(m, n, bm, bn, p, q)| (Just((m, n, bm, bn, p, q)), 0..p, 0..q))
        .prop_map(|((m, n, bm, bn, p, q), sr, sc)| {
            Distribution::new(
                GlobalElementSize::new(m, n),
                TileElementSize::new(bm, bn),
                GridSize::new(p, q),
                RankIndex2D::new(sr, sc),
            )
            .unwrap()
        })
}

fn elements(d: &Distribution) -> impl Iterator<Item = GlobalElementIndex> {
    let s = d.size();
    (0..s.cols()).flat_map(move |j| (0..s.rows()).map(move |i| GlobalElementIndex::new(i, j)))
}

proptest! {
    #[test]
    fn every_element_round_trips_through_its_owner(d in dist_strategy()) {
        for e in elements(&d) {
            let tile = d.global_tile_index(e);
            let owner = d.rank_global_tile(tile);
            let local = d.local_element_index(e, owner).expect("owner holds it");
            prop_assert_eq!(d.global_element_from_local(local, owner), e);
            prop_assert_eq!(d.global_element_index(tile, d.tile_element_index(e)), e);
            let lt = d.local_tile_index(tile, owner).unwrap();
            prop_assert_eq!(d.global_tile_from_local(lt, owner), tile);
            prop_assert_eq!(d.next_local_tile_index(tile, owner), lt);
            prop_assert_eq!(d.next_local_element_index(e, owner), local);
            for r in d.grid_size().ranks().filter(|&r| r != owner) {
                prop_assert_eq!(d.local_element_index(e, r), None);
            }
        }
    }

    #[test]
    fn local_sizes_partition_the_matrix(d in dist_strategy()) {
        let mut total_elems = 0;
        let mut total_tiles = 0;
        for r in d.grid_size().ranks() {
            let ls = d.local_size(r);
            let lt = d.local_nr_tiles(r);
            let owned: Vec<_> = d.tiles().filter(|&t| d.rank_global_tile(t) == r).collect();
            prop_assert_eq!(owned.len(), lt.linear_size());
            let elems: usize = owned.iter().map(|&t| d.tile_size_of(t).linear_size()).sum();
            prop_assert_eq!(elems, ls.linear_size());
            total_elems += ls.linear_size();
            total_tiles += lt.linear_size();
        }
        prop_assert_eq!(total_elems, d.size().linear_size());
        prop_assert_eq!(total_tiles, d.n_tiles().linear_size());
    }

    #[test]
    fn next_local_tile_counts_owned_tiles_before(d in dist_strategy()) {
        let n = d.n_tiles();
        for r in d.grid_size().ranks() {
            for g in 0..=n.rows() {
                let t = GlobalTileIndex::new(g, 0);
                let before = (0..g)
                    .filter(|&k| d.rank_global_tile(GlobalTileIndex::new(k, 0)).row() == r.row())
                    .count();
                prop_assert_eq!(d.next_local_tile_index(t, r).row(), before);
            }
        }
    }

    #[test]
    fn tile_layout_places_elements_without_overlap(d in dist_strategy()) {
        for r in d.grid_size().ranks() {
            let layout = LayoutInfo::tile_layout(d.local_size(r), d.block_size());
            let mut seen = std::collections::BTreeSet::new();
            for e in elements(&d) {
                let tile = d.global_tile_index(e);
                if let Some(lt) = d.local_tile_index(tile, r) {
                    let off = layout.element_offset(lt, d.tile_element_index(e));
                    prop_assert!(off < layout.min_mem_size());
                    prop_assert!(seen.insert(off));
                }
            }
        }
    }
}
