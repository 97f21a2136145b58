//! `greet hello NAME [TIMES]`: a coordsh feature in Rust, through the plain C ABI (version 2).
use coordsh_sys::*;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;

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

/// The feature's data is leaked on purpose: the host reads it for the life of the process.
#[no_mangle]
pub unsafe extern "C" fn coordsh_plugin_entry(descriptor: *mut coordsh_plugin_descriptor) -> i32 {
    let params: &'static [coordsh_param] = Box::leak(Box::new([
        coordsh_param::new(c"name", COORDSH_TYPE_STRING, false, c"who to greet"),
        coordsh_param::new(c"times", COORDSH_TYPE_INT, true, c"how often (1 to 5)"),
    ]));
    let pages = Box::leak(Box::new([coordsh_page::new(c"home", &[], c"the greeting page", render_home)]));
    let handler: unsafe extern "C" fn(*mut coordsh_ctx, *const c_char, *const i64) -> i32 = hello;
    let handler = std::mem::transmute::<_, coordsh_handler_fn>(handler);
    let messages = Box::leak(Box::new([coordsh_message::new(c"hello", params, c"greet someone", handler)]));
    let feature = Box::leak(Box::new(coordsh_feature::new(c"greet", c"greet", c"a plugin in Rust", pages, messages)));
    describe(descriptor, c"greet", c"1.0.0", feature)
}
