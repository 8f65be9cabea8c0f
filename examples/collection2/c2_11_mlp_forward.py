"""Forward pass of a small multilayer perceptron: dense layers, activations, layer norm, softmax.
Inference code of the kind people jit to serve a NumPy-trained model without a framework.
"""
import numpy as np
from numba import njit, prange


@njit(fastmath=True)
def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


@njit
def relu(x):
    return np.maximum(x, 0.0)


@njit
def dense(x, W, b):
    return x @ W + b


@njit
def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.sum(axis=1) / x.shape[1]
    xc = x - mu.reshape(-1, 1)
    var = (xc * xc).sum(axis=1) / x.shape[1]
    return xc / np.sqrt(var + eps).reshape(-1, 1) * gamma + beta


@njit
def softmax(z):
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        m = z[i].max()
        e = np.exp(z[i] - m)
        out[i] = e / e.sum()
    return out


@njit
def mlp_forward(x, W1, b1, W2, b2, W3, b3):
    h = relu(dense(x, W1, b1))
    h = gelu(dense(h, W2, b2))
    return softmax(dense(h, W3, b3))


@njit
def mlp_norm_forward(x, W1, b1, gamma, beta, W2, b2):
    h = dense(x, W1, b1)
    h = layer_norm(h, gamma, beta)
    h = relu(h)
    logits = dense(h, W2, b2)
    pred = np.empty(logits.shape[0], dtype=np.int64)
    for i in range(logits.shape[0]):
        pred[i] = np.argmax(logits[i])
    return logits, pred


@njit(parallel=True)
def predict_classes(x, W1, b1, W2, b2):
    n = x.shape[0]
    hidden = W1.shape[1]
    k = W2.shape[1]
    labels = np.empty(n, dtype=np.int64)
    for i in prange(n):
        h = np.empty(hidden)
        for j in range(hidden):
            acc = b1[j]
            for d in range(x.shape[1]):
                acc += x[i, d] * W1[d, j]
            h[j] = acc if acc > 0.0 else 0.0
        best = -np.inf
        arg = 0
        for c in range(k):
            acc = b2[c]
            for j in range(hidden):
                acc += h[j] * W2[j, c]
            if acc > best:
                best = acc
                arg = c
        labels[i] = arg
    return labels


KPC_CASES = {
    "mlp_forward": {
        "args": {"x": ("n", "d"), "W1": ("d", "h"), "b1": ("h",), "W2": ("h", "h"), "b2": ("h",),
                 "W3": ("h", "k"), "b3": ("k",)},
        "sizes": [{"n": 1, "d": 1, "h": 1, "k": 1}, {"n": 5, "d": 3, "h": 8, "k": 4},
                  {"n": 2048, "d": 64, "h": 256, "k": 10}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "mlp_norm_forward": {
        "args": {"x": ("n", "d"), "W1": ("d", "h"), "b1": ("h",), "gamma": ("h",), "beta": ("h",),
                 "W2": ("h", "k"), "b2": ("k",)},
        "sizes": [{"n": 1, "d": 2, "h": 3, "k": 2}, {"n": 2048, "d": 64, "h": 256, "k": 10}],
        "rtol": 1e-9,
        "atol": 1e-10,
    },
    "predict_classes": {
        "args": {"x": ("n", "d"), "W1": ("d", "h"), "b1": ("h",), "W2": ("h", "k"), "b2": ("k",)},
        "dtypes": ["float64", "float32"],
        "sizes": [{"n": 1, "d": 1, "h": 1, "k": 1}, {"n": 2000, "d": 32, "h": 128, "k": 10}],
        "layouts": ["C", "F"],
    },
}
