// What the playground's editor (editor.js) takes from CodeMirror 6: bundled
// with its dependencies into vendor/codemirror.js by npm/build.sh (esbuild),
// so the page loads one module and needs no bundler of its own.
export { EditorView, basicSetup } from "codemirror";
export { EditorState } from "@codemirror/state";
export { StreamLanguage, syntaxHighlighting } from "@codemirror/language";
export { classHighlighter } from "@lezer/highlight";
