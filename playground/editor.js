// The source editor: CodeMirror 6 (bundled from npm into vendor/codemirror.js
// by npm/build.sh) with line numbers and TExpr's highlighting, as an element
// that reads and writes like the textarea it replaces (`value`,
// `selectionStart`, `selectionEnd`, `setSelectionRange`, `focus`, an `input`
// event for every edit typed), so the page and the scripts that drive it
// (the test suite's) use either alike. Offsets are UTF-16 code units, as the
// compiler's diagnostics give them.
import {
  EditorState, EditorView, StreamLanguage, basicSetup, classHighlighter, syntaxHighlighting,
} from "./vendor/codemirror.js";

// The lexer's keywords (texpr-syntax/src/lexer.rs) and element types.
const KEYWORDS = new Set([
  "param", "input", "output", "let", "in", "compute", "reduce", "else", "fill",
  "broadcast", "inf", "max", "min", "lse", "iterate", "from", "yield",
]);
const TYPES = new Set(["f32", "f16", "i32", "u32", "bool"]);

// TExpr's tokens as CodeMirror's stream parser sees them: comments (`//` to
// the end of the line, `/* */` across lines), numbers, `@levels`,
// keywords, types, names and operators. The state is whether a block
// comment is open.
const texpr = StreamLanguage.define({
  name: "texpr",
  startState: () => ({ comment: false }),
  token(stream, state) {
    if (state.comment) {
      if (stream.skipTo("*/")) {
        stream.pos += 2;
        state.comment = false;
      } else {
        stream.skipToEnd();
      }
      return "comment";
    }
    if (stream.eatSpace()) return null;
    if (stream.match("//")) {
      stream.skipToEnd();
      return "comment";
    }
    if (stream.match("/*")) {
      state.comment = true;
      return "comment";
    }
    if (stream.match(/^[0-9][0-9_]*(\.[0-9]+)?([eE][-+]?[0-9]+)?(f32|f16|i32|u32|u)?/)) return "number";
    if (stream.match(/^@[A-Za-z_][A-Za-z0-9_]*/)) return "meta";
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (word) {
      if (KEYWORDS.has(word[0])) return "keyword";
      if (TYPES.has(word[0])) return "typeName";
      return "variableName";
    }
    if (stream.match(/^(->|<=|>=|==|!=|&&|\|\||[-+*/%<>=!|])/)) return "operator";
    stream.next();
    return "punctuation";
  },
  languageData: { commentTokens: { line: "//", block: { open: "/*", close: "*/" } } },
});

class TexprEditor extends HTMLElement {
  #view;
  // Set while `value` is assigned: that is not an edit typed.
  #assigning = false;

  // The view is made here, outside the document (an element's constructor
  // may not add children); it goes in when the element does.
  constructor() {
    super();
    this.#view = new EditorView({
      state: EditorState.create({
        extensions: [
          basicSetup,
          texpr,
          syntaxHighlighting(classHighlighter),
          EditorView.contentAttributes.of({ "aria-label": "TExpr source", spellcheck: "false" }),
          EditorView.updateListener.of((u) => {
            if (u.docChanged && !this.#assigning) this.dispatchEvent(new Event("input", { bubbles: true }));
          }),
        ],
      }),
    });
  }

  connectedCallback() {
    if (this.#view.dom.parentNode !== this) this.append(this.#view.dom);
  }

  get value() {
    return this.#view.state.doc.toString();
  }

  set value(text) {
    this.#assigning = true;
    try {
      const doc = this.#view.state.doc;
      this.#view.dispatch({ changes: { from: 0, to: doc.length, insert: `${text}` }, selection: { anchor: 0 } });
    } finally {
      this.#assigning = false;
    }
  }

  get selectionStart() {
    return this.#view.state.selection.main.from;
  }

  get selectionEnd() {
    return this.#view.state.selection.main.to;
  }

  setSelectionRange(start, end) {
    const length = this.#view.state.doc.length;
    const at = (x) => Math.max(0, Math.min(length, x));
    this.#view.dispatch({ selection: { anchor: at(start), head: at(end) }, scrollIntoView: true });
  }

  focus() {
    this.#view.focus();
  }
}

customElements.define("texpr-editor", TexprEditor);

/** Replaces `textarea` with the editor, keeping its id and text. */
export function mount(textarea) {
  const editor = document.createElement("texpr-editor");
  editor.id = textarea.id;
  textarea.replaceWith(editor);
  editor.value = textarea.value;
  return editor;
}
