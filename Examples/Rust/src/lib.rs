//! `greet hello NAME [TIMES]`: a coordsh feature in Rust, through the plain C ABI (version 2).
use coordsh_sys::*;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::ptr;

/// The page `greet/home`: a title and one line.
unsafe extern "C" fn render_home(ctx: *mut coordsh_ctx) -> i32 {
    let host = &*(*ctx).host;
    (host.set_title)(ctx, c"Greetings".as_ptr());
    (host.add_line)(ctx, c"greet hello NAME [TIMES] — be greeted, in Rust".as_ptr());
    0
}

/// `greet hello NAME [TIMES]`: an ordinary C function with typed parameters (a string, an
/// optional integer as a pointer that is NULL when not given), called by the host through libffi.
unsafe extern "C" fn hello(ctx: *mut coordsh_ctx, name: *const c_char, times: *const i64) -> i32 {
    let host = &*(*ctx).host;
    let times = if times.is_null() { 1 } else { *times };
    if !(1..=5).contains(&times) {
        (host.set_error)(ctx, c"greet hello: TIMES is 1 to 5".as_ptr());
        return 1;
    }
    let name = CStr::from_ptr(name).to_string_lossy();
    for _ in 0..times {
        let line = CString::new(format!("hello, {name}, from Rust")).unwrap_or_default();
        (host.note)(ctx, line.as_ptr());
    }
    0
}

/// Fills the descriptor; the feature's data is leaked on purpose: the host reads it for the
/// life of the process.
#[no_mangle]
pub unsafe extern "C" fn coordsh_plugin_entry(descriptor: *mut coordsh_plugin_descriptor) -> i32 {
    let params: &'static [coordsh_param] = Box::leak(Box::new([
        coordsh_param { name: c"name".as_ptr(), r#type: COORDSH_TYPE_STRING, optional: 0, summary: c"who to greet".as_ptr() },
        coordsh_param { name: c"times".as_ptr(), r#type: COORDSH_TYPE_INT, optional: 1, summary: c"how often (1 to 5)".as_ptr() },
    ]));
    let pages: &'static [coordsh_page] = Box::leak(Box::new([coordsh_page {
        name: c"home".as_ptr(),
        params: ptr::null(),
        param_count: 0,
        summary: c"the greeting page".as_ptr(),
        render: Some(render_home),
    }]));
    let handler: unsafe extern "C" fn(*mut coordsh_ctx, *const c_char, *const i64) -> i32 = hello;
    let messages: &'static [coordsh_message] = Box::leak(Box::new([coordsh_message {
        verb: c"hello".as_ptr(),
        params: params.as_ptr(),
        param_count: params.len() as i32,
        summary: c"greet someone".as_ptr(),
        needs: ptr::null(),
        need_count: 0,
        waiting: ptr::null(),
        handler: Some(std::mem::transmute::<_, coordsh_handler_fn>(handler)),
    }]));
    let feature: &'static coordsh_feature = Box::leak(Box::new(coordsh_feature {
        name: c"greet".as_ptr(),
        prefix: c"greet".as_ptr(),
        summary: c"a plugin in Rust".as_ptr(),
        pages: pages.as_ptr(),
        page_count: pages.len() as i32,
        messages: messages.as_ptr(),
        message_count: messages.len() as i32,
        uses: ptr::null(),
        use_count: 0,
        migrations: ptr::null(),
        migration_count: 0,
    }));
    let d = &mut *descriptor;
    d.magic = COORDSH_PLUGIN_MAGIC;
    d.abi_version = COORDSH_PLUGIN_ABI_VERSION_C;
    d.name = c"greet".as_ptr();
    d.version = c"1.0.0".as_ptr();
    d.feature = feature;
    0
}
