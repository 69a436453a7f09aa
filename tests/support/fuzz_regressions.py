"""Minimized programs from the differential fuzzer's findings, kept as regressions.

Each entry is (name, source, args, check): tests/programs/test_difffuzz.py runs the
program through s2sad.fuzz's oracle on exactly these inputs and asserts it
is neither wrong nor a crash (a clear refusal is fine: 004, 006, 014, 017
and 018 are refused today).  The names are those of the reproducers the fuzzer wrote.
"""

import numpy as np

HEAD = "import math\n\nimport numpy as np\n\n\n"

# 022 and 023: a number held in an object, added to an array, under laplacian and vmap
HELD_NUMBER = HEAD.replace("import numpy as np\n", "import numpy as np\n\nimport s2sad\n") + """class Layer:

    def __init__(self, w, c):
        self.w = w
        self.c = c * 1.0

    def __call__(self, a):
        return np.tanh(a * self.w + self.c)

def helper1(a2):
    layer4 = Layer(a2[0] * a2[1], 0.5)
    r3 = layer4(a2) + layer4.w
    return np.outer(np.array([0.6, -0.2]), r3) + r3

def f(x, M):
    return s2sad.derivative(helper1)(M[1]) * x[0]
"""
HELD_NUMBER_ARGS = [np.array([0.3, -0.5, 0.2]),
                    np.array([[-0.30345618, -0.64845368, -0.69772477],
                              [-0.17757561, -0.04147682, -1.82142625]])]

REGRESSIONS = [
    ("001 dict item assignment, dict returned from a loop", HEAD + '''def f(x, y):
    for k3, a4 in enumerate(x):
        d6 = {'a': x, 'b': x}
        d6['a'] = y
        acc8 = 0.5
        for i7 in range(k3):
            acc8 = d6
        acc5 = acc8
    c12 = acc5
    acc25 = c12
    return acc25
''', [np.array([-0.402332719948808, 0.9743123496702035, -0.21689552556381675]),
      -1.3208340899472368], "grad"),

    ("002 nested range loops with an empty inner body", HEAD + '''def f(x, M, n):
    v5 = M
    acc7 = v5
    for i6 in range(len(x)):
        for i8 in range(n):
            for i11 in range(1, i6):
                pass
    return acc7
''', [np.array([-0.6775066024479068, 0.05105634587720555, 0.44879427653252857]),
      np.array([[0.04881209678515019, -0.9853580453562183, -0.3635243732055008],
                [-0.3411629275872123, 0.9832516640864262, 0.4000803858728779]]), 1], "grad"),

    ("003 a new dict key, the dict returned", HEAD + '''def f(x, y):
    acc10 = x
    acc14 = acc10
    d15 = {'a': y, 'b': acc14}
    d15['c'] = y
    c18 = d15
    return c18
''', [np.array([0.7100077172825019, 0.591984844253134, 0.07684916690812976]),
      1.2553985544272197], "grad"),

    ("004 acc -= v in a loop while another name holds acc", HEAD + '''def f(x, L):
    acc3 = np.arange(6.0).reshape(2, 3)
    c6 = acc3
    acc11 = x
    for k9, a10 in enumerate(L):
        acc3 -= acc11
    return c6
''', [np.array([1.3382507632059069, -0.0713280195741291, -0.5841086820557486]),
      [np.array([-0.8004891927331838, 0.8530211034453208, 0.6782205511247517]),
       np.array([0.7560528363331851, 0.6787204703132637, 0.5191488383417526])]], "grad"),

    ("005 a list item assigned and not read again", HEAD + '''def f(x, y):
    lst = [y, x[0]]
    lst[1] = math.cos(y)
    return np.sum(x) + lst[0]
''', [np.array([1.0, 2.0, 3.0]), 2.0], "grad"),

    ("006 for k in D over a dict argument", HEAD + '''def f(D):
    for k4 in D:
        acc3 = D[k4]
    return acc3
''', [{'a': -0.6245860570939786,
       'b': np.array([-0.20381236374543252, 0.17981283829554412, 0.9758881729291832])}], "grad"),

    ("008 z[[1, 0, 1]] += v with a repeated index", HEAD + '''def f(L):
    z8 = np.zeros(3)
    z8[[1, 0, 1]] += L[1]
    return z8
''', [[np.array([0.08723268144539703, -0.47040378439025493, -1.31027825231159]),
       np.array([-0.056176268548470555, -1.5329845803199769, -0.1343799802060349])]], "grad"),

    ("010 std of a vector with no spread", HEAD + '''def f(y):
    v5 = np.std(np.ones(3) * y)
    return v5
''', [1.38493398822376], "grad"),

    ("012 module-level s2sad.derivative of a helper with a zip loop", HEAD.replace(
        "import numpy as np\n", "import numpy as np\n\nimport s2sad\n") + '''def helper1(a2, a3):
    acc6 = a3
    for a4, b5 in zip(a2, a3):
        acc6 = acc6
    return acc6


dd14 = s2sad.derivative(helper1)


def f(x, w, T):
    acc22 = helper1([0.6, 0.2], T[1])
    acc22 += dd14(w, x)
    return 0.7
''', [np.array([0.3073614879843385, -0.11084706456923091, 0.8605489579484294]),
      np.array([-0.5510364002635691, 1.7550978030694033]),
      (1.2242967947384054, np.array([-1.3169270096158285, 0.500380677971071,
                                     -0.8818474241571022]))], "grad"),

    ("014 a dict holds an array changed in place", HEAD + '''def f(x):
    z10 = np.expand_dims(-x, 0)[0]
    box11 = {'k': z10}
    z10[1] = 1
    r12 = box11
    return r12
''', [np.array([0.027354213802547336, 1.0877980322479694, 0.979776862868746])], "grad"),

    ("017 a dict holds an array changed in place, forward mode", HEAD + '''def f(w):
    z3 = np.zeros(3)
    box4 = {'k': z3}
    z3[1] = 1.0
    r5 = box4
    c9 = r5
    return c9
''', [np.array([-0.7927597316041592, -0.5088891747091627])], "jvp"),

    ("018 an alias made in a branch, then z[1] += y", HEAD + '''def f(y):
    z1 = np.zeros(3)
    if 0:
        pass
    else:
        c3 = z1
    acc17 = 0.5
    z1[1] += y
    acc17 += c3
    return acc17
''', [0.6100509730667206], "grad"),

    ("009 std at no spread in forward mode", HEAD + '''def helper3(a4, a5):
    z6 = np.zeros(3)
    z6[z6 > 1.1] += np.dot(a4, a5)
    return np.std(z6)


def f(x):
    lst17 = [x, x]
    c16 = helper3(lst17[1], x)
    return c16
''', [np.array([0.4964507652478893, -0.5867316687464461, 0.3280144357081693])], "jvp"),
    ("seed 501 #115 tape_keep around branch outs at order 2 (a None + None adjoint)",
     "import math\n\nimport numpy as np\n\nimport s2sad\n\n\n" + '''G = np.array([0.5, -1.0, 2.0])
S = 0.7

def helper1(a2, a3):
    acc4 = a3[2]
    j5 = 0
    while j5 < 3:
        j5 += 1
        if acc4 >= -0.2:
            continue
        z6 = np.arange(6.0).reshape(2, 3) * 0.2 * 1.0
        acc4 += np.prod(np.exp(np.tanh(a2))) * 0.5
    lst8 = [acc4 / 1.7 * (acc4 % 0.7), acc4 % (1.0 + 1.3 * 1.3) if acc4 > 0.5 else np.power(acc4, 2)]
    return np.var(np.array([lst8[0], acc4, a3[1]]))
dg9 = s2sad.grad(helper1)

def make10(c):

    def inner(a):
        return np.tanh(np.outer(np.array([0.6, -0.2]), a).sum(axis=0))
    return inner

def f(x, y, n, w):
    acc12 = np.arange(6.0).reshape(2, 3) * 0.2 * 1.0
    for a11 in [dg9(np.concatenate([w, w[:1]]), np.concatenate([w, w[:1]])), s2sad.grad(helper1)(x, np.concatenate([w, w[:1]]))]:
        v14 = math.exp(math.sin(helper1(np.minimum(a11, S), dg9(acc12[0], x))))
    v15 = np.maximum(np.tanh(acc12), np.std(np.tile(G, (2, 1))))
    v16 = (-(x + G))[[2, 0, 1]]
    c17 = (v16[::2] + np.dot(acc12, G)) * (helper1(x, x) if n > 1 else helper1(x, v16))
    g18 = make10(s2sad.derivative(helper1)(G - y, np.sqrt(1.0 + v16 ** 2)))
    z20 = np.linalg.inv(np.array([v16, G]) @ np.array([v16, G]).T + np.eye(2)) @ np.array([v16, G]) * 1.0
    lst22 = [x, g18(x) + np.cos(G)]
    lst22[1] = np.mean(v15, axis=0) + np.flip(z20[0])
    return dg9(np.sum(z20, axis=0), lst22[0]) * np.sum(c17)
''', [np.array([-0.42116070834391844, -0.4258006591156884, 0.03237925892606903]),
      1.2586633649976093, 3, np.array([-0.6825584918153551, -0.34317692910415065])], "order2"),
    ("CI seed 20240611 #27 dict items at order 3: dict_cotangent makes a dict (its adjoint "
     "started as np.zeros_like of it)",
     "import numpy as np\nimport s2sad\n\n" + '''def helper1(a2):
    c3 = sum(val * 2.0 for key, val in dict(a=a2[0] * a2[1], b=1.5).items())
    return c3 * a2[2]
dg8 = s2sad.grad(helper1)

def f(y, M):
    c9 = dg8(np.linspace(0.1, 0.9, 3) * y)
    return M * c9
''', [1.3174542384507604, np.array([[-0.15172878, 0.89645316, -0.34942325],
                                   [-1.02371629, -0.37559982, -0.95746173]])], "order2"),
    ("seed 871 #83 a gradient's seed kept alive in a loop whose carried value was dropped "
     "(NameError in generated code)",
     "import numpy as np\nimport s2sad\n\n" + '''def helper2(a3, a4):
    v11 = a3
    return v11
dg12 = s2sad.grad(helper2)

def f(T, L):
    acc13 = np.stack(L)
    j14 = 0
    while j14 < 3:
        j14 += 1
        acc13 += dg12(acc13, T)
    return 0.5
''', [(0.7664813568840001, np.array([0.0268689, 0.43657945, -0.38198103])),
      [np.array([1.44659959, -0.99848617, 1.00412649]),
       np.array([-0.52814726, -1.16118499, 0.00548133])]], "grad"),
    ("seed 942 #159 a tuple made in one branch and read in the next If's (its unpacking "
     "lost its name: NameError in generated code)",
     "import numpy as np\nimport s2sad\n\n" + '''def helper1(a2):
    lst4 = [a2]
    def h6(v):
        lst4.append(np.sin(v) * 0.5)
    if 1 > 1:
        h6(lst4[-1])
    else:
        h6(lst4[0] * 2.0)
    return np.cos(a2 / (1.5 + lst4[-1] * lst4[-1]))
dd7 = s2sad.derivative(helper1)

def f(x):
    return np.sum(dd7(x))
''', [np.array([0.3, -0.2, 0.5])], "order2"),
    ("CI seed program 14: loops of inlined copies fused on stale facts (a fused loop at a "
     "dropped loop's address took its names: NameError in generated code, in some runs)",
     "import math\n\nimport numpy as np\n\nimport s2sad\n\n" + '''G = np.array([0.5, -1.0, 2.0])
S = 0.7


def helper1(a2, a3):
    z4 = np.copy(((np.outer(np.array([0.6, -0.2]), a3) * np.tanh(a3[1]))))
    z4[[1, 0]] = z4[[0, 1]] * np.sum(a2)
    a5, b6 = (-((z4[0] * z4[1, 2]))), ((a2 * ((a2[1] + z4[1, 2]))))
    for i7 in range(3):
        a5, b6 = b6, np.tanh(a5 * 0.5 + b6 * max(z4[0]))
    if a5[1] > np.sum(b6[-0 - 1:]):
        lst9 = [a2[2], math.tanh(a3[1])]
        lst9[1] = np.log1p(a2[2] * a2[2])
        c8 = np.concatenate([np.abs(a3)[None], ((a3 % 0.9))[None]], axis=0).mean(axis=-1)
    elif b6[1] >= -0.2:
        c8 = ((np.sum(z4, axis=0) + ((a5 * a3[0]))))[:2]
    else:
        c8 = ((b6[:2] + ((np.diag(z4[:, :2]) + np.dot(z4, a5)))))
    return ((((a3 - b6[1])) - b6[1]))

def helper10(a11, a12):
    G = helper1((np.linspace(0.1, 0.9, 3) * a11), ((np.ones(3) * a11)))
    z13 = np.hypot(helper1(a12[0], a12[0]), 1.0) * 1.0
    z13[-1] = max(np.max(a12, axis=0))
    z13[0] = ((a11 / (1.5 + abs(a11) * abs(a11))))
    return z13

dd14 = s2sad.derivative(helper10)


def f(x, y, T, L):
    v15 = np.einsum('ij,ik,j->k', ((np.stack(L) * x[:2][:, None])), ((np.stack(L) * x[:2][:, None])), ((G ** 2)))
    if np.sum(np.sin(G)) > S:
        c16 = np.stack(L)
    elif (T[0] >= -0.2 or np.any(x > y)):
        z17 = np.concatenate([helper10(y, np.stack(L))[1:], helper10(y, np.stack(L))[:1]]) * 1.0
        z17[[0, 2]] = np.tanh(((math.floor(z17[1]) * T[0])))
        v18 = ((np.stack(L) @ np.clip(((L[0] - T[0])), -0.5, 0.8)))
        c16 = np.stack(L)
    else:
        c16 = ((np.stack(L) + ((np.stack(L) + x)).sum(axis=0)))
    v19 = np.arctan(np.log1p(helper10(y, c16) * helper10(y, c16)))
    v20 = np.sin(helper10(((T[0] - v19[1])), (((np.arange(6.0).reshape(2, 3) * y) * np.array([0.6, -0.2])[:, None]))))
    return {'p': np.sum(v20), 'q': helper10(((y // 0.45)), np.stack(L))}
''',
     [np.array([0.55641582, -0.78357933, -1.25879227]), -0.9695809769457975,
      (1.1147761070374318, np.array([0.81859057, -0.70571668, 2.12182936])),
      [np.array([-0.7015266, 0.29884245, 2.19166465]),
       np.array([-0.09140193, 0.09143561, -0.40950364])]], "vjp"),
    ("vmap 50031/653: a tuple's gradient broadcast to a batch kept its type (Cotangent)",
     HEAD + """G = np.array([0.5, -1.0, 2.0])
S = 0.7


def f(x, y, M, n, w, T):
    acc1 = (np.ravel(M)[1:4]) * 1.0
    j2 = 0
    while True:
        j2 += 1
        if j2 > n:
            break
        msg3 = f"{((T[0] - y))!r:>12} {((T[0] - y)):+.2e}"
        acc1 = np.tanh(acc1 + T[1])
        if j2 > 1:
            break
    v4 = (((np.linspace(0.1, 0.9, 3) * y) * np.abs(((acc1 ** n)))))
    v5 = acc1[1]
    return acc1 * (np.sum(acc1) + v5)
""",
     [np.array([0.14077121055410285, 1.0222557798695897, 0.5568641213533404]),
      -1.0098245607478524,
      np.array([[-0.8879199684465322, -1.0958811880427481, -1.7797229547031232],
                [-0.23823480276926917, -0.08919656480727703, 0.1304314207173784]]), 0,
      np.array([0.27712096415772586, -0.38484939572794175]),
      (-1.3556898214001716, np.array([2.1417054056002782, -0.14009975801311197,
                                      0.6328520239245955]))], "vmap"),
    ("vmap 52021/228: the gradient of a list popped from a loop's record, unsplit as an array",
     HEAD + """G = np.array([0.5, -1.0, 2.0])
S = 0.7


def make1(c):
    def inner(a):
        return a

    return inner

def make2(c):
    def inner(a):
        return np.sum((np.arange(6.0).reshape(2, 3) * c), axis=0)

    return inner

def f(x, y, M, n, T):
    acc5 = np.exp(np.cos(sum(x)))
    for k3, a4 in enumerate([np.square(x), M[0]]):
        g6 = lambda p7: p7
        r8 = g6(T[0])
        d12 = {'p': x[0], 'q': ((x / (1.5 + a4 * a4)))}
        acc9 = math.cos(acc5)
        for k10 in d12:
            acc9 = acc9 * 0.5 + np.sin(np.sum(d12[k10]))
        acc5 = acc5 * np.cos(y) + (-(((y // 0.6) * acc5)))
        if k3 % 2 == 0:
            break
    z13 = np.zeros((2, 3))
    for i14 in range(len(x)):
        z13[i14 % 2] += np.tanh(z13[(i14 + 1) % 2] + np.concatenate([np.where(T[1] > np.linspace(0.1, 0.9, 3), T[1], np.linspace(0.1, 0.9, 3) * 0.5)[1:], np.where(T[1] > np.linspace(0.1, 0.9, 3), T[1], np.linspace(0.1, 0.9, 3) * 0.5)[:1]]))
    mode15 = "none"
    if mode15 == "tanh":
        r16 = np.tanh(z13)
    elif mode15 == "sin":
        r16 = np.sin(z13) * 2.0
    else:
        r16 = z13 * 0.5
    v17 = ((T[1][None, :] * ((M + T[1][[0, 0, 2]]))))
    v18 = math.cos((((((y // 0.6) * x[1])) - math.log(1.0 + v17[1, 2] * v17[1, 2]))))
    return np.sum(z13) + v18 + v18
""",
     [np.array([0.4677268837600627, 0.49269065178200705, -0.006946549163048147]), -1.0989555014240842, np.array([[-0.23597948188831014, -1.0996001531595212, -1.0461528433118326], [1.5299097761532123, -0.35756514446718013, -0.2647161849261081]]), 1, (-0.2286120584775925, np.array([1.235278223015927, 1.8195335242237431, 0.6620222042672106]), )], "vmap"),
    ("vmap 52022/61: the gradient of a list added to another (+ of two Cotangents) "
     "indexed as a batched array; then a tuple argument's gradient unbroadcast as an array",
     HEAD + """class Layer:

    def __init__(self, w, c):
        self.w = w
        self.c = c

    def __call__(self, a):
        return self.w

def helper1(a2, a3):
    lst4 = [2, a3]
    lst4[0] = [0.3, 0.4, 0.8]
    return lst4[1]

def f(x, y, T):
    rest7 = np.arange(6.0).reshape(2, 3) * y
    items8 = rest7
    z9 = 0.5
    layers14 = [Layer(helper1(z9, items8[1]), T), Layer(0, helper1(z9, items8[1]))]
    r13 = T
    for layer15 in layers14:
        r13 = layer15(r13)
    return x * r13
""",
     [np.array([0.40668512068977425, -0.9846385222240063, 0.38762267205008993]),
      -1.2890422643031394,
      (0.22789963279176859, np.array([0.3555171549981525, -1.138580510818466,
                                      0.937635606975084]))], "vmap"),
    ("022 a number held in an object added to an array under stacked directions: the "
     "tangent sum add_grads of a (D, 3) and a (D,) coefficient did not broadcast",
     HELD_NUMBER, HELD_NUMBER_ARGS, "laplacian"),
    ("023 the same under vmap: the batched tangent sum of a (B, 3) and a (B,) value",
     HELD_NUMBER, HELD_NUMBER_ARGS, "vmap"),
]
