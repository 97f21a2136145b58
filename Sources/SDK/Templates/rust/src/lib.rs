//! The __NAME__ feature: one page and `__NAME__ show ID`, through coordsh's plain C ABI.
use coordsh_sys::*;
use std::ffi::CString;
use std::ptr;

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

/// Fills the descriptor; the feature's data is leaked on purpose: the host reads it for the
/// life of the process.
#[no_mangle]
pub unsafe extern "C" fn coordsh_plugin_entry(descriptor: *mut coordsh_plugin_descriptor) -> i32 {
    let id: &'static [coordsh_param] =
        Box::leak(Box::new([coordsh_param { name: c"id".as_ptr(), r#type: COORDSH_TYPE_INT, optional: 0, summary: c"item number".as_ptr() }]));
    let pages: &'static [coordsh_page] = Box::leak(Box::new([coordsh_page {
        name: c"home".as_ptr(),
        params: ptr::null(),
        param_count: 0,
        summary: c"the __NAME__ feature".as_ptr(),
        render: Some(render_home),
    }]));
    let handler: unsafe extern "C" fn(*mut coordsh_ctx, i64) -> i32 = show;
    let messages: &'static [coordsh_message] = Box::leak(Box::new([coordsh_message {
        verb: c"show".as_ptr(),
        params: id.as_ptr(),
        param_count: 1,
        summary: c"show one item".as_ptr(),
        needs: ptr::null(),
        need_count: 0,
        waiting: ptr::null(),
        handler: Some(std::mem::transmute::<_, coordsh_handler_fn>(handler)),
    }]));
    let feature: &'static coordsh_feature = Box::leak(Box::new(coordsh_feature {
        name: c"__NAME__".as_ptr(),
        prefix: c"__NAME__".as_ptr(),
        summary: c"the __NAME__ feature".as_ptr(),
        pages: pages.as_ptr(),
        page_count: 1,
        messages: messages.as_ptr(),
        message_count: 1,
        uses: ptr::null(),
        use_count: 0,
        migrations: ptr::null(),
        migration_count: 0,
    }));
    let d = &mut *descriptor;
    d.magic = COORDSH_PLUGIN_MAGIC;
    d.abi_version = COORDSH_PLUGIN_ABI_VERSION_C;
    d.name = c"__NAME__".as_ptr();
    d.version = c"0.1.0".as_ptr();
    d.feature = feature;
    0
}
