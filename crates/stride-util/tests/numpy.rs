//! View operations against numpy 2.4: each case is an op chain on a fresh
//! row-major array and the shape, strides (in elements), offset and C/F
//! contiguity numpy gives (or the start of numpy's error message; ours adds
//! the offending axis and values). The expected values were produced by
//! running the numpy expression in each comment.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use stride_util::{IndexItem, Order, StridedView, ViewError, parse_index_expression};

fn rm(sizes: &[i64]) -> StridedView {
    StridedView::row_major(sizes).unwrap()
}

fn ix(text: &str) -> Vec<IndexItem> {
    parse_index_expression(text).unwrap()
}

type Expected<'a> = Result<(&'a [i64], &'a [i64], i64, bool, bool), &'a str>;

#[track_caller]
fn check(actual: Result<StridedView, ViewError>, expected: Expected<'_>) {
    match (actual, expected) {
        (Ok(view), Ok((sizes, strides, offset, c, f))) => {
            assert_eq!(view.sizes(), sizes, "sizes of {view:?}");
            assert_eq!(view.strides(), strides, "strides of {view:?}");
            assert_eq!(view.offset(), offset, "offset of {view:?}");
            assert_eq!(view.is_c_contiguous(), c, "C contiguity of {view:?}");
            assert_eq!(view.is_f_contiguous(), f, "F contiguity of {view:?}");
        }
        (Err(error), Err(numpy)) => {
            let text = error.to_string();
            assert!(
                text.starts_with(numpy),
                "{text:?} does not start with numpy's {numpy:?}"
            );
        }
        (actual, expected) => panic!("got {actual:?}, numpy gives {expected:?}"),
    }
}

#[test]
fn numpy_view_operations() {
    // mk((3,4)).reshape(2,-1,2)
    check(
        rm(&[3, 4]).reshape(&[2, -1, 2]),
        Ok((&[2, 3, 2], &[6, 2, 1], 0, true, false)),
    );
    // mk((6,)).reshape(-1,4)
    check(
        rm(&[6]).reshape(&[-1, 4]),
        Err("cannot reshape array of size 6 into shape (4)"),
    );
    // mk((6,)).reshape(4,-1)
    check(
        rm(&[6]).reshape(&[4, -1]),
        Err("cannot reshape array of size 6 into shape (4,newaxis)"),
    );
    // mk((6,)).reshape(4)
    check(
        rm(&[6]).reshape(&[4]),
        Err("cannot reshape array of size 6 into shape (4,)"),
    );
    // mk((6,)).reshape(-1,-1)
    check(
        rm(&[6]).reshape(&[-1, -1]),
        Err("can only specify one unknown dimension"),
    );
    // mk((6,)).reshape(0,-1)
    check(
        rm(&[6]).reshape(&[0, -1]),
        Err("cannot reshape array of size 6 into shape (0,newaxis)"),
    );
    // mk((6,)).reshape(-2,3)
    check(
        rm(&[6]).reshape(&[-2, 3]),
        Ok((&[2, 3], &[3, 1], 0, true, false)),
    );
    // mk((2,0,3)).reshape(3,0,2)
    check(
        rm(&[2, 0, 3]).reshape(&[3, 0, 2]),
        Ok((&[3, 0, 2], &[2, 2, 1], 0, true, true)),
    );
    // mk((2,0,3)).reshape(0,-1)
    check(
        rm(&[2, 0, 3]).reshape(&[0, -1]),
        Err("cannot reshape array of size 0 into shape (0,newaxis)"),
    );
    // mk((4,3))[:, ::2].reshape(8, copy=False)
    check(
        rm(&[4, 3])
            .index(&ix("[:, ::2]"))
            .and_then(|v| v.reshape(&[8])),
        Err("Unable to avoid creating a copy while reshaping."),
    );
    // mk((4,1,3))[:, :, ::2].reshape(2,2,2, copy=False)
    check(
        rm(&[4, 1, 3])
            .index(&ix("[:, :, ::2]"))
            .and_then(|v| v.reshape(&[2, 2, 2])),
        Ok((&[2, 2, 2], &[6, 3, 2], 0, false, false)),
    );
    // mk((4,1,3))[:, :, ::2].reshape(2,2,1,2,1, copy=False)
    check(
        rm(&[4, 1, 3])
            .index(&ix("[:, :, ::2]"))
            .and_then(|v| v.reshape(&[2, 2, 1, 2, 1])),
        Ok((&[2, 2, 1, 2, 1], &[6, 3, 4, 2, 2], 0, false, false)),
    );
    // mk((2,3,4)).transpose(1,0,2).reshape(3,8, copy=False)
    check(
        rm(&[2, 3, 4])
            .permute(&[1, 0, 2])
            .and_then(|v| v.reshape(&[3, 8])),
        Err("Unable to avoid creating a copy while reshaping."),
    );
    // mk((2,3,4)).transpose(1,0,2).reshape(3,2,2,2, copy=False)
    check(
        rm(&[2, 3, 4])
            .permute(&[1, 0, 2])
            .and_then(|v| v.reshape(&[3, 2, 2, 2])),
        Ok((&[3, 2, 2, 2], &[4, 12, 2, 1], 0, false, false)),
    );
    // mk((5,))[::2].reshape(3,1, copy=False)
    check(
        rm(&[5])
            .index(&ix("[::2]"))
            .and_then(|v| v.reshape(&[3, 1])),
        Ok((&[3, 1], &[2, 2], 0, false, false)),
    );
    // mk((3,5))[:, ::2].T.reshape(3,3,1,order='F', copy=False)
    check(
        rm(&[3, 5])
            .index(&ix("[:, ::2]"))
            .and_then(|v| v.transpose().reshape_with_order(&[3, 3, 1], Order::F)),
        Ok((&[3, 3, 1], &[2, 5, 15], 0, false, false)),
    );
    // mk((3,5))[:, ::2].T.reshape(1,3,3,1,order='F', copy=False)
    check(
        rm(&[3, 5])
            .index(&ix("[:, ::2]"))
            .and_then(|v| v.transpose().reshape_with_order(&[1, 3, 3, 1], Order::F)),
        Ok((&[1, 3, 3, 1], &[2, 2, 5, 15], 0, false, false)),
    );
    // mk((3,5))[:, ::2].T.reshape(3,1,3, copy=False)
    check(
        rm(&[3, 5])
            .index(&ix("[:, ::2]"))
            .and_then(|v| v.transpose().reshape(&[3, 1, 3])),
        Ok((&[3, 1, 3], &[2, 15, 5], 0, false, false)),
    );
    // np.broadcast_to(mk((3,)), (4,3)).reshape(2,2,3, copy=False)
    check(
        rm(&[3])
            .broadcast_to(&[4, 3])
            .and_then(|v| v.reshape(&[2, 2, 3])),
        Ok((&[2, 2, 3], &[0, 0, 1], 0, false, false)),
    );
    // np.broadcast_to(mk((1,)), (4,3)).reshape(12, copy=False)
    check(
        rm(&[1])
            .broadcast_to(&[4, 3])
            .and_then(|v| v.reshape(&[12])),
        Ok((&[12], &[0], 0, false, false)),
    );
    // mk((1,1)).reshape(())
    check(rm(&[1, 1]).reshape(&[]), Ok((&[], &[], 0, true, true)));
    // mk(()).reshape(1,1)
    check(
        rm(&[]).reshape(&[1, 1]),
        Ok((&[1, 1], &[1, 1], 0, true, true)),
    );
    // mk((4,3))[5]
    check(
        rm(&[4, 3]).index(&ix("[5]")),
        Err("index 5 is out of bounds for axis 0 with size 4"),
    );
    // mk((4,3))[-5]
    check(
        rm(&[4, 3]).index(&ix("[-5]")),
        Err("index -5 is out of bounds for axis 0 with size 4"),
    );
    // mk((4,3))[:,3]
    check(
        rm(&[4, 3]).index(&ix("[:,3]")),
        Err("index 3 is out of bounds for axis 1 with size 3"),
    );
    // mk((4,3))[0,0,0]
    check(
        rm(&[4, 3]).index(&ix("[0,0,0]")),
        Err("too many indices for array: array is 2-dimensional, but 3 were indexed"),
    );
    // mk((4,3))[..., ...]
    check(
        rm(&[4, 3]).index(&ix("[..., ...]")),
        Err("an index can only have a single ellipsis ('...')"),
    );
    // mk((4,3))[1:1]
    check(
        rm(&[4, 3]).index(&ix("[1:1]")),
        Ok((&[0, 3], &[3, 1], 0, true, true)),
    );
    // mk((4,3))[::-1]
    check(
        rm(&[4, 3]).index(&ix("[::-1]")),
        Ok((&[4, 3], &[-3, 1], 9, false, false)),
    );
    // mk((4,3))[1, None]
    check(
        rm(&[4, 3]).index(&ix("[1, None]")),
        Ok((&[1, 3], &[0, 1], 3, true, true)),
    );
    // mk((4,3))[None, ..., None]
    check(
        rm(&[4, 3]).index(&ix("[None, ..., None]")),
        Ok((&[1, 4, 3, 1], &[0, 3, 1, 0], 0, true, false)),
    );
    // mk((4,3,2))[1, ..., None, 1]
    check(
        rm(&[4, 3, 2]).index(&ix("[1, ..., None, 1]")),
        Ok((&[3, 1], &[2, 0], 7, false, false)),
    );
    // mk((4,3))[None, None, 1:1:-1]
    check(
        rm(&[4, 3]).index(&ix("[None, None, 1:1:-1]")),
        Ok((&[1, 1, 0, 3], &[0, 0, 3, 1], 0, true, true)),
    );
    // mk((4,3))[10:-10:-3]
    check(
        rm(&[4, 3]).index(&ix("[10:-10:-3]")),
        Ok((&[2, 3], &[-9, 1], 9, false, false)),
    );
    // mk((10,))[-3:2:-2]
    check(
        rm(&[10]).index(&ix("[-3:2:-2]")),
        Ok((&[3], &[-2], 7, false, false)),
    );
    // mk((10,))[-100:100:3]
    check(
        rm(&[10]).index(&ix("[-100:100:3]")),
        Ok((&[4], &[3], 0, false, false)),
    );
    // mk((10,))[8:-100:-4]
    check(
        rm(&[10]).index(&ix("[8:-100:-4]")),
        Ok((&[3], &[-4], 8, false, false)),
    );
    // mk((3,4))[::-1, 2]
    check(
        rm(&[3, 4]).index(&ix("[::-1, 2]")),
        Ok((&[3], &[-4], 10, false, false)),
    );
    // mk((3,4))[0:3:2, 1:4:2]
    check(
        rm(&[3, 4]).index(&ix("[0:3:2, 1:4:2]")),
        Ok((&[2, 2], &[8, 2], 1, false, false)),
    );
    // mk((4,3)).transpose(1,-2)
    check(
        rm(&[4, 3]).permute(&[1, -2]),
        Ok((&[3, 4], &[1, 3], 0, false, true)),
    );
    // mk((4,3)).transpose(0,0)
    check(
        rm(&[4, 3]).permute(&[0, 0]),
        Err("repeated axis in transpose"),
    );
    // mk((4,3)).transpose(0,2)
    check(
        rm(&[4, 3]).permute(&[0, 2]),
        Err("axis 2 is out of bounds for array of dimension 2"),
    );
    // mk((4,3)).transpose(0)
    check(rm(&[4, 3]).permute(&[0]), Err("axes don't match array"));
    // mk((4,3)).swapaxes(0,2)
    check(
        rm(&[4, 3]).swapaxes(0, 2),
        Err("axis2: axis 2 is out of bounds for array of dimension 2"),
    );
    // mk((4,3)).swapaxes(-1,0)
    check(
        rm(&[4, 3]).swapaxes(-1, 0),
        Ok((&[3, 4], &[1, 3], 0, false, true)),
    );
    // np.moveaxis(mk((4,3)),0,2)
    check(
        rm(&[4, 3]).moveaxis(&[0], &[2]),
        Err("destination: axis 2 is out of bounds for array of dimension 2"),
    );
    // np.moveaxis(mk((4,3)),[0,0],[1,0])
    check(
        rm(&[4, 3]).moveaxis(&[0, 0], &[1, 0]),
        Err("repeated axis in `source` argument"),
    );
    // np.moveaxis(mk((2,3,4,5)),[0,1],[2])
    check(
        rm(&[2, 3, 4, 5]).moveaxis(&[0, 1], &[2]),
        Err("`source` and `destination` arguments must have the same number of elements"),
    );
    // np.moveaxis(mk((2,3,4,5)),[3,0],[0,-1])
    check(
        rm(&[2, 3, 4, 5]).moveaxis(&[3, 0], &[0, -1]),
        Ok((&[5, 3, 4, 2], &[1, 20, 5, 60], 0, false, false)),
    );
    // np.expand_dims(mk((4,3)),3)
    check(
        rm(&[4, 3]).expand_dims(&[3]),
        Err("axis 3 is out of bounds for array of dimension 3"),
    );
    // np.expand_dims(mk((4,3)),(0,0))
    check(rm(&[4, 3]).expand_dims(&[0, 0]), Err("repeated axis"));
    // np.expand_dims(mk((4,3)).T,(0,2))
    check(
        rm(&[4, 3]).transpose().expand_dims(&[0, 2]),
        Ok((&[1, 3, 1, 4], &[3, 1, 12, 3], 0, false, true)),
    );
    // np.expand_dims(mk((4,3))[::2, ::2],(1,-1))
    check(
        rm(&[4, 3])
            .index(&ix("[::2, ::2]"))
            .and_then(|v| v.expand_dims(&[1, -1])),
        Ok((&[2, 1, 2, 1], &[6, 4, 2, 2], 0, false, false)),
    );
    // mk((4,1,3)).squeeze()
    check(
        Ok::<_, ViewError>(rm(&[4, 1, 3]).squeeze()),
        Ok((&[4, 3], &[3, 1], 0, true, false)),
    );
    // mk((4,1,3)).squeeze(5)
    check(
        rm(&[4, 1, 3]).squeeze_axes(&[5]),
        Err("axis 5 is out of bounds for array of dimension 3"),
    );
    // mk((4,1,3)).squeeze(0)
    check(
        rm(&[4, 1, 3]).squeeze_axes(&[0]),
        Err("cannot select an axis to squeeze out which has size not equal to one"),
    );
    // mk((2,3)).squeeze((0,0))
    check(
        rm(&[2, 3]).squeeze_axes(&[0, 0]),
        Err("duplicate value in 'axis'"),
    );
    // np.broadcast_to(mk((1,3)),(1,3))
    check(
        rm(&[1, 3]).broadcast_to(&[1, 3]),
        Ok((&[1, 3], &[0, 1], 0, true, true)),
    );
    // np.broadcast_to(mk((1,3)),(5,1,3))
    check(
        rm(&[1, 3]).broadcast_to(&[5, 1, 3]),
        Ok((&[5, 1, 3], &[0, 0, 1], 0, false, false)),
    );
    // np.broadcast_to(mk((4,1)),(4,0))
    check(
        rm(&[4, 1]).broadcast_to(&[4, 0]),
        Ok((&[4, 0], &[1, 0], 0, true, true)),
    );
    // np.broadcast_to(mk((4,3)),(2,3))
    check(
        rm(&[4, 3]).broadcast_to(&[2, 3]),
        Err(
            "operands could not be broadcast together with remapped shapes [original->remapped]: (4,3)  and requested shape (2,3)",
        ),
    );
    // np.broadcast_to(mk((4,3)),(3,))
    check(
        rm(&[4, 3]).broadcast_to(&[3]),
        Err("input operand has more dimensions than allowed by the axis remapping"),
    );
    // np.broadcast_to(mk((4,3)),(-1,4,3))
    check(
        rm(&[4, 3]).broadcast_to(&[-1, 4, 3]),
        Err("all elements of broadcast shape must be non-negative"),
    );
    // np.broadcast_to(mk((3,4,1,5)),(2,3,4,10,5))
    check(
        rm(&[3, 4, 1, 5]).broadcast_to(&[2, 3, 4, 10, 5]),
        Ok((&[2, 3, 4, 10, 5], &[0, 20, 5, 0, 1], 0, false, false)),
    );
    // np.flip(mk((4,3)),2)
    check(
        rm(&[4, 3]).flip_axes(&[2]),
        Err("axis 2 is out of bounds for array of dimension 2"),
    );
    // np.flip(mk((4,3)),(0,0))
    check(rm(&[4, 3]).flip_axes(&[0, 0]), Err("repeated axis"));
    // np.flip(mk((4,3)))
    check(
        rm(&[4, 3]).flip(),
        Ok((&[4, 3], &[-3, -1], 11, false, false)),
    );
    // np.flip(mk((2,3,4)), 1)
    check(
        rm(&[2, 3, 4]).flip_axes(&[1]),
        Ok((&[2, 3, 4], &[12, -4, 1], 8, false, false)),
    );
    // mk((4,3))[::0]
    check(
        rm(&[4, 3]).index(&ix("[::0]")),
        Err("slice step cannot be zero"),
    );
}
