"""Flood fill with an explicit stack, connected-component labelling (union-find, two pass), region statistics.
Segmentation code from image-analysis scripts that avoid recursion limits.
"""
import numpy as np
from numba import njit


@njit
def flood_fill(img, seed_r, seed_c, new_value):
    out = img.copy()
    h, w = out.shape
    old = out[seed_r, seed_c]
    if old == new_value:
        return out
    stack = [(seed_r, seed_c)]
    while len(stack) > 0:
        r, c = stack.pop()
        if r < 0 or r >= h or c < 0 or c >= w or out[r, c] != old:
            continue
        out[r, c] = new_value
        stack.append((r + 1, c))
        stack.append((r - 1, c))
        stack.append((r, c + 1))
        stack.append((r, c - 1))
    return out


@njit
def find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@njit
def label_components(mask):
    h, w = mask.shape
    labels = np.zeros((h, w), dtype=np.int64)
    parent = np.arange(h * w + 1)
    nxt = 1
    for i in range(h):
        for j in range(w):
            if not mask[i, j]:
                continue
            up = labels[i - 1, j] if i > 0 else 0
            left = labels[i, j - 1] if j > 0 else 0
            if up == 0 and left == 0:
                labels[i, j] = nxt
                nxt += 1
            elif up != 0 and left != 0:
                a, b = find(parent, up), find(parent, left)
                labels[i, j] = min(a, b)
                parent[max(a, b)] = min(a, b)
            else:
                labels[i, j] = max(up, left)
    remap = np.zeros(nxt, dtype=np.int64)
    count = 0
    for i in range(h):
        for j in range(w):
            if labels[i, j]:
                root = find(parent, labels[i, j])
                if remap[root] == 0:
                    count += 1
                    remap[root] = count
                labels[i, j] = remap[root]
    return labels, count


@njit
def region_stats(mask, values):
    labels, count = label_components(mask)
    area = np.zeros(count + 1, dtype=np.int64)
    total = np.zeros(count + 1)
    for i in range(mask.shape[0]):
        for j in range(mask.shape[1]):
            area[labels[i, j]] += 1
            total[labels[i, j]] += values[i, j]
    mean = total[1:] / np.maximum(area[1:], 1)
    return area[1:], mean


KPC_CASES = {
    "flood_fill": {
        "args": {"img": {"kind": "index", "shape": ("h", "w"), "high": "k"},
                 "seed_r": {"kind": "scalar", "value": "h // 2"}, "seed_c": {"kind": "scalar", "value": "w // 2"},
                 "new_value": {"kind": "scalar", "value": 7}},
        "dtypes": ["int64"],
        "sizes": [{"h": 1, "w": 1, "k": 2}, {"h": 6, "w": 9, "k": 2}, {"h": 40, "w": 30, "k": 2}, {"h": 700, "w": 700, "k": 1}],
    },
    "label_components": {
        "args": {"mask": {"kind": "array", "shape": ("h", "w"), "dtype": "bool"}},
        "sizes": [{"h": 1, "w": 1}, {"h": 8, "w": 6}, {"h": 1000, "w": 1000}],
        "layouts": ["C", "F"],
    },
    "region_stats": {
        "args": {"mask": {"kind": "array", "shape": ("h", "w"), "dtype": "bool"}, "values": ("h", "w")},
        "sizes": [{"h": 1, "w": 1}, {"h": 8, "w": 6}, {"h": 1000, "w": 1000}],
        "rtol": 1e-10,
    },
}
