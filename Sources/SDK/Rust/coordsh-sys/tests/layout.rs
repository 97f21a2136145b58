//! Prints the size of every struct and the offset of every field, one `layout NAME VALUE` line
//! each, in the form coordsh's tests print the header's with a C compiler: the two must be equal.
use coordsh_sys::*;
use std::mem::{offset_of, size_of};

macro_rules! s {
    ($t:ident) => {
        println!("layout {} {}", stringify!($t), size_of::<$t>())
    };
}
macro_rules! f {
    ($t:ident, $f:ident) => {
        f!($t, $f, stringify!($f))
    };
    ($t:ident, $f:ident, $name:expr) => {
        println!("layout {}.{} {}", stringify!($t), $name, offset_of!($t, $f))
    };
}

#[test]
fn layout() {
    s!(coordsh_plugin_descriptor); f!(coordsh_plugin_descriptor, magic); f!(coordsh_plugin_descriptor, abi_version);
    f!(coordsh_plugin_descriptor, sdk_version); f!(coordsh_plugin_descriptor, swift_version); f!(coordsh_plugin_descriptor, name);
    f!(coordsh_plugin_descriptor, version); f!(coordsh_plugin_descriptor, plugin); f!(coordsh_plugin_descriptor, error);
    f!(coordsh_plugin_descriptor, feature); f!(coordsh_plugin_descriptor, feature_size);
    s!(coordsh_param); f!(coordsh_param, name); f!(coordsh_param, r#type, "type"); f!(coordsh_param, optional); f!(coordsh_param, summary);
    s!(coordsh_ctx); f!(coordsh_ctx, host); f!(coordsh_ctx, host_private);
    s!(coordsh_page); f!(coordsh_page, name); f!(coordsh_page, params); f!(coordsh_page, param_count); f!(coordsh_page, summary);
    f!(coordsh_page, render);
    s!(coordsh_message); f!(coordsh_message, verb); f!(coordsh_message, params); f!(coordsh_message, param_count);
    f!(coordsh_message, summary); f!(coordsh_message, needs); f!(coordsh_message, need_count); f!(coordsh_message, waiting);
    f!(coordsh_message, handler);
    s!(coordsh_feature); f!(coordsh_feature, name); f!(coordsh_feature, prefix); f!(coordsh_feature, summary); f!(coordsh_feature, pages);
    f!(coordsh_feature, page_count); f!(coordsh_feature, messages); f!(coordsh_feature, message_count); f!(coordsh_feature, uses);
    f!(coordsh_feature, use_count); f!(coordsh_feature, migrations); f!(coordsh_feature, migration_count); f!(coordsh_feature, complete);
    s!(coordsh_value); f!(coordsh_value, r#type, "type"); f!(coordsh_value, integer); f!(coordsh_value, real); f!(coordsh_value, text);
    s!(coordsh_host); f!(coordsh_host, size); f!(coordsh_host, set_error); f!(coordsh_host, note); f!(coordsh_host, display);
    f!(coordsh_host, send); f!(coordsh_host, arg_int); f!(coordsh_host, arg_string); f!(coordsh_host, set_title); f!(coordsh_host, add_line);
    f!(coordsh_host, sql); f!(coordsh_host, setting); f!(coordsh_host, login); f!(coordsh_host, arg_double);
}
