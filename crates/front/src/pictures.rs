//! The pictures `draw` makes: a shape's layout, a strided view, or a
//! sharding, as SVG.

use index_util::TiledLayout;
use schema::Shape;
use sharding_util::HloSharding;

use crate::operand::shape_or_dims;
use crate::{Error, draw};

/// The SVG picture of `shape`'s layout.
pub fn draw_shape(shape: &Shape) -> Result<String, String> {
    Ok(draw::render(&draw::shape::picture(shape, &buffer(shape)?)?))
}

/// The SVG picture of the view after `ops` applied to `base` (as for
/// `view`): the view's grid above the base buffer.
pub fn draw_view(base: &str, ops: &[String]) -> Result<String, String> {
    let view = stride_util::resolve_view(base, ops).map_err(|e| e.to_string())?;
    // A bare `[d0,...]` is packed row-major, as XLA's default layout of
    // `f32[d0,...]`.
    let (base_shape, _) = shape_or_dims(base).map_err(|e| e.to_string())?;
    let title = format!("{} {}", base.trim(), ops.join(" "));
    Ok(draw::render(&draw::view::picture(
        title.trim_end(),
        &base_shape,
        &buffer(&base_shape)?,
        &view,
    )?))
}

/// The SVG picture of `shape` split over devices by the sharding `text`
/// (over `devices` devices when it names no count), over a mesh of
/// `mesh_axes` when given.
///
/// # Errors
/// [`Error::Sharding`] for a sharding that names no device count where
/// `devices` is `None` (the caller says how to give one); else
/// [`Error::Picture`] with the parser's or the picture's message.
pub fn draw_sharding(
    shape: &Shape,
    text: &str,
    devices: Option<i64>,
    mesh_axes: Option<&[(String, i64)]>,
) -> Result<String, Error> {
    let s = crate::shard::sharding(text).map_err(|e| Error::picture(e.to_string()))?;
    draw_hlo_sharding(shape, &s, devices, mesh_axes)
}

/// The SVG picture of `shape` split over devices by `s`, as
/// [`draw_sharding`] draws it.
pub(crate) fn draw_hlo_sharding(
    shape: &Shape,
    s: &HloSharding,
    devices: Option<i64>,
    mesh_axes: Option<&[(String, i64)]>,
) -> Result<String, Error> {
    draw_hlo_sharding_on(shape, s, devices, (mesh_axes, None))
}

/// [`draw_hlo_sharding`] with the device id of each device number when
/// `device_ids` is given.
pub(crate) fn draw_hlo_sharding_on(
    shape: &Shape,
    s: &HloSharding,
    devices: Option<i64>,
    (mesh_axes, device_ids): draw::sharding::MeshDevices<'_>,
) -> Result<String, Error> {
    // The sharding's own count before the ids', so that ids of another
    // count are refused as such.
    let n = s.device_count(devices.or_else(|| {
        s.num_devices()
            .or_else(|| device_ids.and_then(|ids| i64::try_from(ids.len()).ok()))
    }))?;
    let picture =
        draw::sharding::picture(shape, s, n, (mesh_axes, device_ids)).map_err(Error::picture)?;
    Ok(draw::render(&picture))
}

/// The buffer of `shape`, tiles included: the picture asks it only for
/// what it shows.
fn buffer(shape: &Shape) -> Result<TiledLayout, String> {
    TiledLayout::new(shape).map_err(|e| e.to_string())
}
