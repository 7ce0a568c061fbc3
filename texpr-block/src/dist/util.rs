//! 1D index conversions of the 2D block-cyclic distribution (one component at a time).
//!
//! Along one dimension, tiles of `block` elements are dealt to `grid` ranks in
//! turn, starting with rank `src`: global tile `g` lives on rank
//! `(g + src) % grid` at local position `g / grid`.

use super::index::SizeType;

/// The global tile holding a global element.
pub fn tile_from_element(element: SizeType, block: SizeType) -> SizeType {
    element / block
}

/// The position of a global element inside its tile.
pub fn tile_element_from_element(element: SizeType, block: SizeType) -> SizeType {
    element % block
}

/// The global element at `tile_element` of global tile `tile`.
pub fn element_from_tile_and_tile_element(
    tile: SizeType,
    tile_element: SizeType,
    block: SizeType,
) -> SizeType {
    tile * block + tile_element
}

/// The rank coordinate that owns global tile `tile`.
pub fn rank_global_tile(tile: SizeType, grid: SizeType, src: SizeType) -> SizeType {
    (tile + src) % grid
}

/// The first global tile owned by `rank`.
fn first_tile_of_rank(grid: SizeType, rank: SizeType, src: SizeType) -> SizeType {
    (rank + grid - src % grid) % grid
}

/// The local tile index of global tile `tile` on `rank`, if `rank` owns it.
pub fn local_tile_from_global_tile(
    tile: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> Option<SizeType> {
    (rank_global_tile(tile, grid, src) == rank).then_some(tile / grid)
}

/// The local index on `rank` of global tile `tile` if `rank` owns it,
/// otherwise of the next global tile `rank` owns (the number of tiles `rank`
/// owns before `tile`).
pub fn next_local_tile_from_global_tile(
    tile: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> SizeType {
    let first = first_tile_of_rank(grid, rank, src);
    if tile <= first {
        0
    } else {
        (tile - first).div_ceil(grid)
    }
}

/// The global tile at local position `local` on `rank`.
pub fn global_tile_from_local_tile(
    local: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> SizeType {
    local * grid + first_tile_of_rank(grid, rank, src)
}

/// The local element index on `rank` of a global element, if `rank` owns it.
pub fn local_element_from_global_element(
    element: SizeType,
    block: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> Option<SizeType> {
    let tile = tile_from_element(element, block);
    let local = local_tile_from_global_tile(tile, grid, rank, src)?;
    Some(element_from_tile_and_tile_element(
        local,
        tile_element_from_element(element, block),
        block,
    ))
}

/// The local element index on `rank` of a global element if `rank` owns it,
/// otherwise of the first element of the next tile `rank` owns.
pub fn next_local_element_from_global_element(
    element: SizeType,
    block: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> SizeType {
    local_element_from_global_element(element, block, grid, rank, src).unwrap_or_else(|| {
        let tile = tile_from_element(element, block);
        next_local_tile_from_global_tile(tile, grid, rank, src) * block
    })
}

/// The global element at local element `local` on `rank`.
pub fn global_element_from_local_element(
    local: SizeType,
    block: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> SizeType {
    let tile = global_tile_from_local_tile(local / block, grid, rank, src);
    element_from_tile_and_tile_element(tile, local % block, block)
}

/// How many elements of a dimension of `size` elements `rank` stores.
pub fn local_size(
    size: SizeType,
    block: SizeType,
    grid: SizeType,
    rank: SizeType,
    src: SizeType,
) -> SizeType {
    let n_tiles = size.div_ceil(block);
    let n_local = next_local_tile_from_global_tile(n_tiles, grid, rank, src);
    if n_local == 0 {
        return 0;
    }
    let last = n_tiles - 1;
    let full = n_local * block;
    if rank_global_tile(last, grid, src) == rank {
        full - (n_tiles * block - size)
    } else {
        full
    }
}
