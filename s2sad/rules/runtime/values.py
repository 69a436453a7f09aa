"""Rules for stop_gradient and for reading a field of a record (a namedtuple or a
frozen dataclass parameter): the helpers of s2sad/runtime.py that values and
parameter containers need."""

from ...registry import defbprop, defjvp, deflinear, defview
from ...runtime import field, field_grad, stop_gradient


@defbprop(stop_gradient)
def bprop_stop_gradient(x, out, dout):
    # zero by definition: no gradient flows back through it
    return (None,)


@defjvp(stop_gradient)
def jvp_stop_gradient(x, out, dx):
    return (None,)


@defbprop(field)
def bprop_field(x, record, name, out, dout):
    return (field_grad(x, record, name, dout), None, None)


@defbprop(field_grad)
def bprop_field_grad(x, record, name, g, out, dout):
    return (None, None, None, field(dout, record, name))


deflinear(field, args=(0,))
deflinear(field_grad, args=(3,))
# stop_gradient(x) is x, and record.a the array the record holds: an in-place update of
# either while the other is read is refused
defview(stop_gradient, field)
