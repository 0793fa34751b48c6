"""jax's own objects read by ``xla_shape._jax``, checked against jax's own
answers (``devices_indices_map``, ``addressable_shards``,
``memory_analysis()``, the layouts jax compiles with) on 8 CPU devices."""

import os
import random

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
).strip()

import numpy as np  # noqa: E402
import pytest  # noqa: E402

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import xla_shape  # noqa: E402
from xla_shape import XlaShapeError, _jax, _native  # noqa: E402

from jax.experimental.layout import Format, Layout  # noqa: E402
from jax.sharding import (  # noqa: E402
    AbstractMesh,
    Mesh,
    NamedSharding,
    PartitionSpec as P,
    SingleDeviceSharding,
)

if jax.device_count() < 8:
    pytest.skip(
        "jax was imported before XLA_FLAGS asked for 8 CPU devices", allow_module_level=True
    )

# The permutation the tests' meshes use: position 0 of the mesh is jax's
# device 3, so a device number is visibly not a Device.id.
PERMUTATION = [3, 1, 2, 0, 6, 7, 4, 5]
MESH_SHAPES = [(8,), (2, 4), (4, 2), (2, 2, 2), (1, 8)]


def permuted_mesh(shape, names):
    devices = np.array(jax.devices())[PERMUTATION].reshape(shape)
    return Mesh(devices, names)


def boxes_from_package(dims, read):
    """Each jax Device.id's box of the global array, as ``(start, stop)``
    per dimension, from ``xla_shape.shard`` and ``device_ids``."""
    text = "f32[" + ",".join(str(d) for d in dims) + "]"
    report = xla_shape.shard(text, read.text, devices=len(read.device_ids))
    boxes = {}
    for entry in report["devices"]:
        device_id = read.device_ids[entry["device"]]
        boxes[device_id] = normalize(list(zip(entry["offsets"], entry["limits"])))
    return boxes


def normalize(box):
    """A box with every empty one spelled alike (jax and XLA place an
    empty shard's start differently)."""
    box = [(int(lo), int(hi)) for lo, hi in box]
    return "empty" if any(hi <= lo for lo, hi in box) else box


def jax_box(index, dims):
    return normalize(
        [(s.indices(d)[0], s.indices(d)[1]) for s, d in zip(index, dims)]
    )


def random_spec(rng, names, ndim):
    """A PartitionSpec that puts each mesh axis on a random dimension (or
    none), several axes on one dimension in a random order."""
    per_dim = [[] for _ in range(ndim)]
    for name in names:
        choice = rng.randrange(ndim + 1)
        if choice < ndim:
            per_dim[choice].append(name)
    for axes in per_dim:
        rng.shuffle(axes)
    return P(*[None if not a else (a[0] if len(a) == 1 else tuple(a)) for a in per_dim])


def parts(mesh, entry):
    """How many pieces a PartitionSpec entry cuts its dimension into."""
    axes = () if entry is None else (entry,) if isinstance(entry, str) else entry
    return int(np.prod([mesh.shape[a] for a in axes], dtype=np.int64))


def test_permuted_mesh_maps_device_numbers_to_jax_ids():
    mesh = permuted_mesh((2, 4), ("a", "b"))
    read = _jax.sharding(NamedSharding(mesh, P("b", None)), 2)
    assert read.text == "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"
    assert read.device_ids == [3, 1, 2, 0, 6, 7, 4, 5]
    assert read.mesh_axes == [("a", 2), ("b", 4)]
    # Device number 0 holds rows 0..2: in jax that is Device 3.
    first = xla_shape.shard("f32[8,4]", read.text)["devices"][0]
    assert (first["device"], first["offsets"], first["limits"]) == (0, [0, 0], [2, 4])
    index = NamedSharding(mesh, P("b", None)).devices_indices_map((8, 4))[jax.devices()[3]]
    assert jax_box(index, (8, 4)) == [(0, 2), (0, 4)]


def test_random_named_shardings_match_devices_indices_map():
    rng = random.Random(20260428)
    for _ in range(60):
        mesh_shape = rng.choice(MESH_SHAPES)
        names = tuple("xyz"[: len(mesh_shape)])
        mesh = permuted_mesh(mesh_shape, names)
        ndim = rng.randint(1, 3)
        spec = random_spec(rng, names, ndim)
        named = NamedSharding(mesh, spec)
        # jax places only dimensions its partition count divides.
        dims = tuple(
            parts(mesh, entry) * rng.randint(1, 3) for entry in tuple(spec) + (None,) * ndim
        )[:ndim]
        read = _jax.sharding(named, ndim)
        assert read.mesh_axes == list(zip(names, mesh_shape))
        ours = boxes_from_package(dims, read)
        theirs = {
            device.id: jax_box(index, dims)
            for device, index in named.devices_indices_map(dims).items()
        }
        assert ours == theirs, (named, dims, read.text)


def test_addressable_shards_of_a_placed_array():
    mesh = permuted_mesh((2, 4), ("data", "model"))
    named = NamedSharding(mesh, P("model", "data"))
    values = np.arange(12 * 6, dtype=np.float32).reshape(12, 6)
    placed = jax.device_put(values, named)
    read = _jax.sharding(named, 2)
    ours = boxes_from_package(values.shape, read)
    assert len(placed.addressable_shards) == 8
    for piece in placed.addressable_shards:
        box = ours[piece.device.id]
        assert jax_box(piece.index, values.shape) == box
        (r0, r1), (c0, c1) = box
        np.testing.assert_array_equal(np.asarray(piece.data), values[r0:r1, c0:c1])


def test_uneven_placement_lists_an_empty_shard():
    # jax refuses to place 7 rows on 8 devices; XLA gives each a row (the
    # shard shape rounded up) and the last mesh position, jax's device 5,
    # nothing.
    named = NamedSharding(permuted_mesh((8,), ("x",)), P("x"))
    ours = boxes_from_package((7,), _jax.sharding(named, 1))
    assert ours == {
        device: ("empty" if row == 7 else [(row, row + 1)])
        for row, device in enumerate(PERMUTATION)
    }


def test_other_shardings():
    mesh = permuted_mesh((2, 4), ("a", "b"))
    named = NamedSharding(mesh, P("a", "b"))
    hlo = named._to_xla_hlo_sharding(2)
    assert _jax.sharding(hlo, 2) == (str(hlo), None, None)
    assert _jax.sharding(hlo.to_proto(), 2) == (str(hlo), None, None)
    single = _jax.sharding(SingleDeviceSharding(jax.devices()[5]), 2)
    assert single == ("{replicated}", [5], None)
    abstract = _jax.sharding(NamedSharding(AbstractMesh((2, 4), ("a", "b")), P("a")), 2)
    assert abstract == (
        "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
        None,
        [("a", 2), ("b", 4)],
    )
    replicated = _jax.sharding(NamedSharding(mesh, P()), 1)
    assert replicated.text == "{replicated}"
    report = xla_shape.shard("f32[4]", replicated.text, devices=len(replicated.device_ids))
    assert [d["limits"] for d in report["devices"]] == [[4]] * 8


def test_gspmd_sharding():
    from jax._src.sharding_impls import GSPMDSharding

    mesh = permuted_mesh((2, 4), ("a", "b"))
    named = NamedSharding(mesh, P("b", "a"))
    gspmd = GSPMDSharding(tuple(mesh.devices.flat), named._to_xla_hlo_sharding(2))
    read = _jax.sharding(gspmd, 2)
    assert read.device_ids == PERMUTATION
    assert read.mesh_axes is None
    assert boxes_from_package((8, 6), read) == {
        d.id: jax_box(i, (8, 6)) for d, i in gspmd.devices_indices_map((8, 6)).items()
    }


def test_not_jax_and_bad_rank():
    assert _jax.sharding("{replicated}", 2) is None
    assert _jax.sharding(None, 2) is None
    assert _jax.module_text("HloModule m") is None
    assert _jax.module_text(b"bytes") is None
    assert _jax.layout_text("{1,0}") is None
    named = NamedSharding(permuted_mesh((2, 4), ("a", "b")), P("a", "b"))
    with pytest.raises(
        XlaShapeError,
        match=r"^the PartitionSpec P\('a', 'b'\) has 2 entries, more than the 1 dimension of the array \(rank 1\)$",
    ):
        _jax.sharding(named, 1)
    with pytest.raises(XlaShapeError, match="ndim must not be negative, got -1"):
        _jax.sharding(named, -1)


def step(w, x):
    h = jnp.tanh(x @ w)
    return (h * h).sum(), h.T @ x


def test_module_text_of_compiled_and_lowered():
    w, x = jnp.ones((256, 512)), jnp.ones((128, 256))
    lowered = jax.jit(step).lower(w, x)
    compiled = lowered.compile()
    assert _jax.module_text(compiled) == compiled.as_text()
    assert _jax.module_text(lowered) == lowered.as_text(dialect="hlo")
    assert _jax.module_text(lowered).startswith("HloModule ")
    assert _jax.module_text(lowered.compiler_ir("hlo")).startswith("HloModule ")
    for stablehlo in (lowered.as_text(), lowered.compiler_ir()):
        with pytest.raises(XlaShapeError, match=r"StableHLO .*compile it and pass compiled\.as_text\(\)"):
            _jax.module_text(stablehlo)
    with pytest.raises(XlaShapeError, match=r"pass f.lower\(\*args\).compile\(\)"):
        _jax.module_text(jax.jit(step))
    with pytest.raises(XlaShapeError, match=r"Traced is not a module yet: pass traced.lower\(\).compile\(\)"):
        _jax.module_text(jax.jit(step).trace(w, x))


@pytest.mark.parametrize("sharded", [False, True])
def test_peak_memory_matches_memory_analysis(sharded):
    w, x = jnp.ones((256, 512)), jnp.ones((128, 256))
    if sharded:
        mesh = permuted_mesh((2, 4), ("data", "model"))
        jitted = jax.jit(
            step,
            in_shardings=(NamedSharding(mesh, P(None, "model")), NamedSharding(mesh, P("data"))),
        )
    else:
        jitted = jax.jit(step)
    compiled = jitted.lower(w, x).compile()
    stats = compiled.memory_analysis()
    report = xla_shape.peak_memory(_jax.module_text(compiled))
    assert report["device"] == {
        "argument_bytes": stats.argument_size_in_bytes,
        "output_bytes": stats.output_size_in_bytes,
        "alias_bytes": stats.alias_size_in_bytes,
        "temp_bytes": stats.temp_size_in_bytes,
    }
    # jaxlib's CPU peak_memory_in_bytes is the static baseline alone (see
    # docs/peak-memory.md); the full peak adds the temporaries' heap.
    assert report["static_bytes"] == stats.peak_memory_in_bytes
    assert report["peak_bytes"] == report["static_bytes"] + report["heap_peak_bytes"]
    assert report["heap_peak_bytes"] <= stats.temp_size_in_bytes
    memory = xla_shape.hlo_memory(_jax.module_text(compiled))
    assert memory["parameter_bytes"] == stats.argument_size_in_bytes
    assert memory["output_bytes"] == stats.output_size_in_bytes


LAYOUTS = [
    (Layout((0, 1)), "{1,0}"),
    (Layout((1, 0)), "{0,1}"),
    (Layout((0, 1), ((8, 128),)), "{1,0:T(8,128)}"),
    (Layout((0, 1), ((8, 128), (2, 1))), "{1,0:T(8,128)(2,1)}"),
    (Layout((2, 0, 1), ((8,),), 4), "{1,0,2:T(8)E(4)}"),
    (Layout(()), "{}"),
]


@pytest.mark.parametrize("layout,text", LAYOUTS)
def test_layout_text_is_xlas(layout, text):
    assert _jax.layout_text(layout) == text
    assert _jax.layout_text(Format(layout, SingleDeviceSharding(jax.devices()[0]))) == text
    # jax's own conversion to XLA's layout prints the same.
    dtype = jnp.int4 if layout.sub_byte_element_size_in_bits else jnp.float32
    assert layout._to_xla_layout(dtype).to_string() == text
    assert _jax.layout_text(layout._to_xla_layout(dtype)) == text


def test_layouts_jax_compiled_with():
    compiled = jax.jit(lambda x: (x * 2).T).lower(jnp.ones((16, 256), jnp.bfloat16)).compile()
    (fmt,), _ = compiled.input_formats
    out = compiled.output_formats
    head = compiled.as_text().splitlines()[0]
    assert f"(bf16[16,256]{_jax.layout_text(fmt)})" in head
    assert f"->bf16[256,16]{_jax.layout_text(out)}" in head
    placed = jax.device_put(jnp.ones((4, 6)))
    assert _jax.layout_text(placed) == "{1,0}"
    assert _jax.layout_text(jax.ShapeDtypeStruct((4, 6), jnp.float32)) is None
    device = SingleDeviceSharding(jax.devices()[0])
    column_major = jax.ShapeDtypeStruct((4, 6), jnp.float32, sharding=Format(Layout((1, 0)), device))
    assert _jax.layout_text(column_major) == "{0,1}"
    shape = xla_shape.parse("f32[4,6]" + _jax.layout_text(placed))
    assert xla_shape.memory_order(shape)[:7] == [0, 1, 2, 3, 4, 5, 6]


def test_layouts_refused():
    with pytest.raises(XlaShapeError, match="Layout.AUTO leaves the layout to XLA"):
        _jax.layout_text(Layout.AUTO)
    with pytest.raises(XlaShapeError, match="names no layout"):
        _jax.layout_text(Format(None, SingleDeviceSharding(jax.devices()[0])))
    with pytest.raises(XlaShapeError, match="tile dimension 0 is not positive"):
        _jax.layout_text(Layout((0, 1), ((0, 128),)))


def test_jax_is_imported_only_when_given_its_objects():
    import subprocess
    import sys

    code = (
        "import sys, xla_shape\n"
        "from xla_shape import _jax\n"
        "assert _jax.sharding('{replicated}', 1) is None\n"
        "assert _jax.module_text('HloModule m') is None\n"
        "assert _jax.layout_text('{1,0}') is None\n"
        "print('jax' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_sharding_picture_names_a_jax_meshs_axes():
    named = NamedSharding(permuted_mesh((2, 4), ("data", "model")), P("model"))
    read = _jax.sharding(named, 2)
    svg = _native.draw_sharding_svg("f32[8,4]", read.text, None, read.mesh_axes)
    assert ">mesh data=2 \u00b7 model=4<" in svg
