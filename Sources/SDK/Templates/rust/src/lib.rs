//! The __NAME__ feature: one page and `__NAME__ show ID`, through coordsh's plain C ABI.
use coordsh_sys::*;
use std::ffi::CString;

/// The page __NAME__/home.
unsafe extern "C" fn render_home(ctx: *mut coordsh_ctx) -> i32 {
    let host = &*(*ctx).host;
    (host.set_title)(ctx, c"__Name__".as_ptr());
    (host.add_line)(ctx, c"__NAME__ show ID — one item".as_ptr());
    0
}

/// `__NAME__ show ID`: a C function with typed parameters, called through libffi.
unsafe extern "C" fn show(ctx: *mut coordsh_ctx, id: i64) -> i32 {
    let host = &*(*ctx).host;
    let line = CString::new(format!("item {id}")).unwrap_or_default();
    (host.note)(ctx, line.as_ptr());
    0
}

/// The feature's data is leaked on purpose: the host reads it for the life of the process.
#[no_mangle]
pub unsafe extern "C" fn coordsh_plugin_entry(descriptor: *mut coordsh_plugin_descriptor) -> i32 {
    let id: &'static [coordsh_param] = Box::leak(Box::new([coordsh_param::new(c"id", COORDSH_TYPE_INT, false, c"item number")]));
    let pages = Box::leak(Box::new([coordsh_page::new(c"home", &[], c"the __NAME__ feature", render_home)]));
    let handler: unsafe extern "C" fn(*mut coordsh_ctx, i64) -> i32 = show;
    let handler = std::mem::transmute::<_, coordsh_handler_fn>(handler);
    let messages = Box::leak(Box::new([coordsh_message::new(c"show", id, c"show one item", handler)]));
    let feature = Box::leak(Box::new(coordsh_feature::new(c"__NAME__", c"__NAME__", c"the __NAME__ feature", pages, messages)));
    describe(descriptor, c"__NAME__", c"0.1.0", feature)
}
