// §3.6.2: MultiHeadAttention. One projection for all heads, split into heads with view and
// transpose, one batched matmul for all heads, heads merged back and mixed by out_proj.
#include "lessons/causal_setup.h"
#include "lessons/lesson.h"
#include "lessons/lesson_text.h"
#include "nn/multihead_attention.h"
#include "core/ops_math.h"
#include "core/ops_shape.h"
#include "core/print.h"
#include "core/usage_error.h"

namespace attn {

namespace {

std::string stride_text(const Tensor& t) { return shape_text(t.strides()); }
std::string bool_text(bool b) { return b ? "True" : "False"; }
std::string str(int64_t v) { return std::to_string(v); }

void batched_matmul_cells(Notebook& nb) {
  nb.heading("3.6.2", "Batched matrix multiplication over heads", "对多个头做批处理矩阵乘法");
  // The book's example tensor: (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4).
  Tensor a({1, 2, 3, 4}, {0.2745f, 0.6584f, 0.2775f, 0.8573f, 0.8993f, 0.0390f, 0.9268f, 0.7388f,
                          0.7179f, 0.7058f, 0.9156f, 0.4340f, 0.0772f, 0.3565f, 0.1479f, 0.5331f,
                          0.4066f, 0.2318f, 0.4545f, 0.9737f, 0.4606f, 0.5159f, 0.4220f, 0.5786f});
  nb.cell({"a = torch.tensor([[[[0.2745, 0.6584, 0.2775, 0.8573],",
           "                    [0.8993, 0.0390, 0.9268, 0.7388],",
           "                    [0.7179, 0.7058, 0.9156, 0.4340]],",
           "                   [[0.0772, 0.3565, 0.1479, 0.5331],",
           "                    [0.4066, 0.2318, 0.4545, 0.9737],",
           "                    [0.4606, 0.5159, 0.4220, 0.5786]]]])",
           "print(a @ a.transpose(2, 3))"});
  nb.record("a", a);
  nb.show("a @ a.transpose(2, 3)", matmul(a, transpose(a, 2, 3)));
  nb.note("a has shape (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4). @ multiplies the last two "
          "dimensions and loops over the leading ones: one (3, 4) @ (4, 3) product per head.",
          "a 的形状是 (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4)。@ 只在最后两个维度上做矩阵乘法，"
          "并对前面的维度逐一重复：每个头各做一次 (3, 4) @ (4, 3) 的乘法。");
  nb.explain("transpose(2, 3) swaps only the last two dimensions, num_tokens and head_dim, so each head's (3, 4) "
             "matrix meets its own (4, 3) transpose. PyTorch's @ treats every dimension before the last two as a "
             "batch dimension: here 1 x 2 = 2 independent matrix products in a single call. The result, (1, 2, 3, 3), "
             "holds for each head the dot product of every token with every token, which is exactly the shape the "
             "attention scores will have inside MultiHeadAttention.",
             "transpose(2, 3) 只交换最后两个维度 num_tokens 和 head_dim，于是每个头的 (3, 4) 矩阵与它自己的 (4, 3) "
             "转置相乘。PyTorch 的 @ 把最后两个维度之前的所有维度都当作批次维度：这里一次调用就完成了 1 × 2 = 2 "
             "个相互独立的矩阵乘法。结果的形状是 (1, 2, 3, 3)，其中每个头都给出了所有词元两两之间的点积，"
             "这正是 MultiHeadAttention 内部注意力分数的形状。");

  nb.cell({"first_head = a[0, 0, :, :]", "first_res = first_head @ first_head.T",
           "print(\"First head:\\n\", first_res)", "", "second_head = a[0, 1, :, :]",
           "second_res = second_head @ second_head.T", "print(\"\\nSecond head:\\n\", second_res)"});
  Tensor first_head = select(select(a, 0, 0), 0, 0);
  Tensor second_head = select(select(a, 0, 0), 0, 1);
  nb.record("first_head", first_head);
  nb.show("First head:\n", "first_res", matmul(first_head, T(first_head)));
  nb.record("second_head", second_head);
  nb.show("\nSecond head:\n", "second_res", matmul(second_head, T(second_head)));
  nb.note("Head by head, the same numbers as the batched product: that one call replaces the loop over heads.",
          "逐个头计算，得到的数与批处理矩阵乘法完全相同：那一次调用取代了对各个头的循环。");
  nb.explain("a[0, 0, :, :] picks text 0 and head 0 and keeps all tokens and features: a plain (3, 4) matrix, so "
             "first_head @ first_head.T is an ordinary 2-D matrix product. Comparing these two printouts with the "
             "4-D result above shows that the batched @ did nothing more than this, for both heads at once. "
             "MultiHeadAttention relies on it to compute every head's attention scores with one matmul instead of "
             "the wrapper's Python loop over heads.",
             "a[0, 0, :, :] 取出第 0 个文本的第 0 个头，保留全部词元和特征，得到一个普通的 (3, 4) 矩阵，"
             "因此 first_head @ first_head.T 就是普通的二维矩阵乘法。把这两个结果与上面的四维结果对比可以看出，"
             "批处理矩阵乘法所做的不过如此，只是同时处理了两个头。MultiHeadAttention 正是靠这一点，"
             "用一次矩阵乘法算出所有头的注意力分数，而不必像封装类那样用 Python 循环逐个处理各个头。");
  nb.confusion("first_head.T works because first_head is 2-D. On the 4-D a, .T would reverse ALL four dimensions "
               "(shape (4, 3, 2, 1), and PyTorch deprecates .T for tensors that are not 2-D), which is why the "
               "batched version writes a.transpose(2, 3): swap only the last two.",
               "first_head.T 之所以可行，是因为 first_head 是二维的。对四维的 a 使用 .T 会把四个维度全部倒序"
               "（形状变成 (4, 3, 2, 1)，而且 PyTorch 已不建议对非二维张量使用 .T），"
               "所以批处理版本写的是 a.transpose(2, 3)：只交换最后两个维度。");
}

void gpt2_cells(Notebook& nb, const LessonOptions& opt) {
  nb.heading("3.6.2", "Exercise 3.3: a GPT-2-small sized attention module", "练习 3.3：初始化 GPT-2 大小的注意力模块");
  nb.cell({"torch.manual_seed(" + fmt_seed(opt, 123) + ")",
           "mha = MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=0.0, num_heads=12)",
           "print(sum(p.numel() for p in mha.parameters()))"});
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  MultiHeadAttention mha = MultiHeadAttention::init(gen, 768, 768, 1024, 0.0, 12, false);
  nb.print(std::to_string(mha.parameter_count()));
  const std::string params = std::to_string(mha.parameter_count());
  nb.note("4 x 768 x 768 weights (query, key, value, out_proj) + 768 out_proj biases = " + params +
              " parameters, for one attention layer; GPT-2 small has 12.",
          "4 × 768 × 768 个权重（查询、键、值和 out_proj）加上 out_proj 的 768 个偏置，共 " + params +
              " 个参数，这只是一个注意力层；最小的 GPT-2 模型有 12 个这样的层。");
  nb.explain("The settings of the smallest GPT-2: embeddings of 768 in and out (d_in = d_out, as in every GPT "
             "model), 12 heads and a context length of 1024 tokens, which only sizes the mask buffer. A buffer is "
             "not a parameter, so parameters() does not count the 1024 x 1024 mask. GPT-2 itself also has biases "
             "in the query, key and value projections (qkv_bias=True, 3 x 768 more parameters); the exercise keeps "
             "the default qkv_bias=False.",
             "这是最小的 GPT-2 模型的设置：输入和输出的嵌入维度都是 768（和所有 GPT 模型一样 d_in = d_out），"
             "12 个注意力头，上下文长度为 1024 个词元，后者只决定掩码缓冲区的大小。缓冲区不是参数，"
             "所以 parameters() 不会计入 1024 × 1024 的掩码。GPT-2 本身的查询、键、值投影还带有偏置"
             "（qkv_bias=True，多出 3 × 768 个参数）；本练习保留默认的 qkv_bias=False。");

  nb.cell({"x = torch.rand(2, 6, 768)", "context_vecs = mha(x)", "print(x.shape)", "print(context_vecs.shape)",
           "print(context_vecs)"});
  Tensor x({2, 6, 768}, rand_values(gen, 2 * 6 * 768));
  nb.record("x", x);
  MultiHeadAttentionTrace t;
  Tensor context_vecs = mha.forward(x, gen, opt.bernoulli, &t);
  nb.print(repr_size(x.shape()));
  nb.print(repr_size(context_vecs.shape()));
  nb.show("context_vecs", context_vecs);
  const std::string scores_shape = shape_text(t.attn_scores.shape());
  nb.note("Each head works on head_dim = 768 / 12 = 64 features; attn_scores is " + scores_shape +
              ". With more than 1000 elements PyTorch summarises the printout with '...'.",
          "每个头处理 head_dim = 768 / 12 = 64 个特征；attn_scores 的形状是 " + scores_shape +
              "。元素超过 1000 个时，PyTorch 会用 '...' 省略打印的中间部分。");
  nb.explain("x stands in for a batch of 2 texts of 6 tokens with 768-dimensional embeddings, drawn after the "
             "module's weights. The output keeps the shape (b, num_tokens, d_out) = (2, 6, 768): every token gets "
             "a 768-dimensional context vector, put together from 12 heads of 64 features and mixed by out_proj. "
             "The mask buffer is 1024 x 1024, but forward only uses its top-left 6 x 6 corner.",
             "x 代表一个批次：2 个文本，每个 6 个词元，嵌入维度为 768，在模块的权重之后抽取。"
             "输出保持 (b, num_tokens, d_out) = (2, 6, 768) 的形状：每个词元得到一个 768 维的上下文向量，"
             "它由 12 个头各 64 个特征拼成，再经 out_proj 混合。掩码缓冲区是 1024 × 1024，"
             "但 forward 只用到它左上角 6 × 6 的部分。");
}

}  // namespace

Notebook mha_lesson(const LessonOptions& opt) {
  Notebook nb = lesson_notebook("mha", {"3.6.2"}, opt);
  const double p = opt.dropout.value_or(0.0);
  const int64_t context_length = opt.context_length_or_tokens();
  const int64_t h = opt.heads_or(2), d_out = opt.d_out;
  if (d_out % h != 0)
    throw UsageError("d_out (" + std::to_string(d_out) + ") must be divisible by num_heads (" + std::to_string(h) +
                     "), as the book's assert says: each head gets d_out / num_heads features; choose --d-out as a "
                     "multiple of --num-heads");

  batched_matmul_cells(nb);

  nb.heading("3.6.2", "Implementing multi-head attention with weight splits", "通过权重划分实现多头注意力");
  Tensor batch = batch_cell(nb, opt, true);
  // batch_cell writes its own note and explanation.

  std::vector<std::string> code = multihead_attention_class_code();
  code.insert(code.end(), {"", "torch.manual_seed(" + fmt_seed(opt, 123) + ")",
                           "batch_size, context_length, d_in = batch.shape",
                           "d_out = " + std::to_string(d_out),
                           "mha = MultiHeadAttention(d_in, d_out, context_length, " + fmt_double(p) + ", num_heads=" +
                               std::to_string(h) + (opt.qkv_bias ? ", qkv_bias=True)" : ")"),
                           "context_vecs = mha(batch)", "print(context_vecs)",
                           "print(\"context_vecs.shape:\", context_vecs.shape)"});
  if (opt.context_length) code[code.size() - 6] = "batch_size, context_length, d_in = 2, " +
                                                   std::to_string(context_length) + ", " + std::to_string(opt.d_in());
  nb.cell(code);
  Generator gen;
  gen.manual_seed(opt.seed_or(123));
  MultiHeadAttention mha = MultiHeadAttention::init(gen, opt.d_in(), d_out, context_length, p, h, opt.qkv_bias);
  MultiHeadAttentionTrace t;
  Tensor context_vecs = mha.forward(batch, gen, opt.bernoulli, &t);
  nb.show("context_vecs", context_vecs);
  nb.print("context_vecs.shape: " + repr_size(context_vecs.shape()));
  const std::string hd = str(mha.head_dim);
  nb.note("d_out is the TOTAL output width here: " + str(h) + " heads of head_dim = " + hd + " each, so the output is " +
              str(d_out) + " wide. The cells below open up mha(batch) step by step.",
          "这里的 d_out 是输出的总宽度：" + str(h) + " 个头，每个头 head_dim = " + hd + "，所以输出宽度是 " +
              str(d_out) + "。下面的单元格逐步拆开 mha(batch)。");
  nb.explain("The class merges the wrapper and CausalAttention into one module: a single W_query, W_key and W_value "
             "of size d_in x d_out serve all heads, and the split into heads is only a change of shape of their "
             "outputs. torch.manual_seed(" + fmt_seed(opt, 123) + ") comes before the constructor, so the weights "
             "are drawn in the order W_query, W_key, W_value, out_proj. The mask buffer is context_length x "
             "context_length and forward cuts it to the number of tokens.",
             "这个类把封装类和 CausalAttention 合并成一个模块：一组大小为 d_in × d_out 的 W_query、W_key、W_value "
             "为所有头服务，拆分成多个头只是改变它们输出的形状。torch.manual_seed(" + fmt_seed(opt, 123) +
             ") 在构造之前调用，权重按 W_query、W_key、W_value、out_proj 的顺序抽取。掩码缓冲区的大小是 "
             "context_length × context_length，forward 会把它截取到实际的词元数。");
  nb.confusion("d_out means different things in the two classes. In MultiHeadAttentionWrapper it is PER HEAD: with "
               "d_out=" + str(d_out) + " and num_heads=" + str(h) + " the wrapper outputs num_heads * d_out = " +
                   str(h * d_out) + " columns. In MultiHeadAttention it is the TOTAL: each head gets head_dim = "
                   "d_out // num_heads = " + hd + ", and the output is " + str(d_out) + " wide. That is why only "
                   "MultiHeadAttention asserts that d_out is divisible by num_heads; the same width from the wrapper "
                   "needs d_out // num_heads there (exercise 3.2).",
               "d_out 在两个类中的含义不同。在 MultiHeadAttentionWrapper 中它是每个头的输出维度：d_out=" + str(d_out) +
                   "、num_heads=" + str(h) + " 时，封装类输出 num_heads * d_out = " + str(h * d_out) +
                   " 列。在 MultiHeadAttention 中它是总维度：每个头得到 head_dim = d_out // num_heads = " + hd +
                   "，输出宽度是 " + str(d_out) + "。正因如此，只有 MultiHeadAttention 需要断言 d_out 能被 "
                   "num_heads 整除；要让封装类得到同样的宽度，应传入 d_out // num_heads（练习 3.2）。");

  const std::string b_t = "(b, num_tokens, ";
  nb.cell({"# inside mha(batch)", "b, num_tokens, d_in = x.shape", "keys = self.W_key(x)", "queries = self.W_query(x)",
           "values = self.W_value(x)", "print(keys)", "print(queries)", "print(values)"});
  nb.show("keys", t.keys);
  nb.show("queries", t.queries);
  nb.show("values", t.values);
  const std::string keys_shape = shape_text(t.keys.shape());
  nb.note("One nn.Linear per role for all heads together: " + b_t + "d_out) = " + keys_shape +
              ". This single matmul is what makes it cheaper than the wrapper's one matmul per head.",
          "查询、键、值各用一个 nn.Linear，同时服务所有头：" + b_t + "d_out) = " + keys_shape +
              "。正是这一次矩阵乘法使它比封装类更高效，封装类需要为每个头各做一次。");
  nb.explain("Each nn.Linear(d_in, d_out) maps every token's " + str(opt.d_in()) + "-dimensional embedding to " +
                 str(d_out) + " numbers, for both texts of the batch at once. Those " + str(d_out) +
                 " columns already hold all heads' features side by side; nothing in the weights says which column "
                 "belongs to which head: the view in the next cell decides that by position. The wrapper instead "
                 "keeps one d_in x d_out matrix per head and multiplies the input num_heads times.",
             "每个 nn.Linear(d_in, d_out) 都把每个词元的 " + str(opt.d_in()) + " 维嵌入映射为 " + str(d_out) +
                 " 个数，批次中的两个文本同时处理。这 " + str(d_out) +
                 " 列已经并排包含了所有头的特征；权重本身并不标明哪一列属于哪个头，"
                 "而是由下一个单元格中的 view 按位置划分。封装类则为每个头保留一个 d_in × d_out 的矩阵，"
                 "把输入乘 num_heads 次。");

  nb.cell({"keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)",
           "queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)",
           "values = values.view(b, num_tokens, self.num_heads, self.head_dim)", "print(keys)"});
  nb.show("keys", t.keys_view);
  nb.record("queries", t.queries_view);
  nb.record("values", t.values_view);
  const std::string view_shape = shape_text(t.keys_view.shape());
  nb.note("view splits the last dimension: (b, num_tokens, num_heads, head_dim) = " + view_shape +
              ". No data moves; the first head_dim columns of each token are head 0.",
          "view 拆分最后一个维度：(b, num_tokens, num_heads, head_dim) = " + view_shape +
              "。数据没有移动；每个词元的前 head_dim 列属于第 0 个头。");
  const bool one_col = mha.head_dim == 1;
  const std::string last_col = str(mha.head_dim - 1);
  nb.explain("view reads the same memory with a new shape. Only the last dimension changes: d_out = " + str(d_out) +
                 " becomes num_heads x head_dim = " + str(h) + " x " + hd + ", so " +
                 (one_col ? std::string("column i of each token is head i")
                          : "columns 0.." + last_col + " of each token are head 0, the next " + hd +
                                " head 1, and so on") +
                 ". The number of elements must stay the same, which is one reason d_out has to be divisible by "
                 "num_heads.",
             "view 以新的形状读取同一块内存。只有最后一个维度变了：d_out = " + str(d_out) +
                 " 变成 num_heads × head_dim = " + str(h) + " × " + hd + "，于是" +
                 (one_col ? std::string("每个词元的第 i 列属于第 i 个头")
                          : "每个词元的第 0.." + last_col + " 列属于第 0 个头，接下来的 " + hd +
                                " 列属于第 1 个头，依此类推") +
                 "。元素总数必须保持不变，这也是 d_out 必须能被 num_heads 整除的原因之一。");
  nb.confusion("Why not view(b, num_heads, num_tokens, head_dim) directly, skipping the transpose? It runs without "
               "error, because the sizes multiply out the same, but view only re-reads memory in order: the first "
               "\"head\" would be the first num_tokens * head_dim numbers of the text, that is, ALL features of the "
               "first few tokens, not the first head_dim features of every token. The heads must be cut off the "
               "last dimension, where they sit side by side, and then moved forward with transpose.",
               "为什么不直接 view(b, num_heads, num_tokens, head_dim)，省掉转置？这样写不会报错，因为各维大小的乘积相同，"
               "但 view 只会按内存顺序重新解读数据：第一个“头”会是这个文本最前面的 num_tokens * head_dim 个数，"
               "也就是前几个词元的全部特征，而不是每个词元的前 head_dim 个特征。必须先从最后一个维度"
               "（各个头在那里并排存放）切出各个头，再用 transpose 把头的维度移到前面。");

  nb.cell({"keys = keys.transpose(1, 2)", "queries = queries.transpose(1, 2)", "values = values.transpose(1, 2)",
           "print(keys)"});
  nb.show("keys", t.keys_heads);
  nb.record("queries", t.queries_heads);
  nb.record("values", t.values_heads);
  const std::string heads_shape = shape_text(t.keys_heads.shape());
  nb.note("transpose(1, 2) brings the heads forward: (b, num_heads, num_tokens, head_dim) = " + heads_shape +
              ", so each head is one (num_tokens, head_dim) matrix, like the a tensor above.",
          "transpose(1, 2) 把头的维度移到前面：(b, num_heads, num_tokens, head_dim) = " + heads_shape +
              "，于是每个头都是一个 (num_tokens, head_dim) 矩阵，就像上面的张量 a。");
  nb.explain("transpose(1, 2) swaps the num_tokens and num_heads dimensions. Afterwards keys[0, 0] is head 0's "
             "(num_tokens, head_dim) matrix for the first text: all tokens, but only that head's features. This is "
             "the layout of the a tensor above, so one @ can now compute every head of every text. transpose does "
             "not move any data either: it only swaps two strides, which matters when the heads are merged back.",
             "transpose(1, 2) 交换 num_tokens 和 num_heads 两个维度。之后 keys[0, 0] 是第一个文本中第 0 个头的 "
             "(num_tokens, head_dim) 矩阵：包含全部词元，但只有这个头的特征。这正是上面张量 a 的布局，"
             "所以现在一次 @ 就能算出每个文本的每个头。transpose 同样不移动数据，只交换两个步长（stride），"
             "这一点在后面把各个头合并回去时很关键。");

  nb.cell({"attn_scores = queries @ keys.transpose(2, 3)", "print(attn_scores)"});
  nb.show("attn_scores", t.attn_scores);
  const std::string scores_shape = shape_text(t.attn_scores.shape());
  nb.note("One batched matmul computes every head's scores: (b, num_heads, num_tokens, num_tokens) = " + scores_shape +
              ".",
          "一次批处理矩阵乘法算出所有头的注意力分数：(b, num_heads, num_tokens, num_tokens) = " + scores_shape + "。");
  nb.explain("keys.transpose(2, 3) turns each head's keys into a (head_dim, num_tokens) matrix, so the product holds, "
             "for every text and head, the dot product of each query with each key. Entry [b, h, i, j] says how "
             "strongly token i attends to token j in head h, before scaling and masking. Each head's scores come "
             "from " + hd + "-dimensional vectors, not from the full " + str(d_out) + "-dimensional ones.",
             "keys.transpose(2, 3) 把每个头的键矩阵变成 (head_dim, num_tokens)，所以乘积对每个文本、每个头都给出"
             "每个查询向量与每个键向量的点积。元素 [b, h, i, j] 表示在第 h 个头中词元 i 对词元 j 的关注程度"
             "（尚未缩放和掩码）。每个头的注意力分数来自 " + hd + " 维的向量，而不是完整的 " + str(d_out) +
             " 维向量。");
  nb.confusion("CausalAttention (3-D keys) wrote keys.transpose(1, 2); here the same step is keys.transpose(2, 3), "
               "because the head dimension shifted everything by one. transpose(1, 2) here would swap heads and "
               "tokens instead of tokens and features. Counting from the end, transpose(-2, -1), works in both.",
               "CausalAttention 中键是三维的，写作 keys.transpose(1, 2)；这里同样的一步写作 keys.transpose(2, 3)，"
               "因为多出的头维度让其余维度都后移了一位。在这里用 transpose(1, 2) 交换的会是头和词元，"
               "而不是词元和特征。从末尾数的写法 transpose(-2, -1) 在两种情况下都正确。");

  nb.cell({"mask_bool = self.mask.bool()[:num_tokens, :num_tokens]", "attn_scores.masked_fill_(mask_bool, -torch.inf)",
           "print(mask_bool)", "print(attn_scores)"});
  nb.show("mask_bool", t.mask_bool);
  nb.show("attn_scores", t.masked_scores);
  nb.note("The (num_tokens, num_tokens) mask broadcasts over batch and heads: True (above the diagonal) means "
          "fill with -inf.",
          "(num_tokens, num_tokens) 的掩码沿批次和头两个维度广播：True（对角线以上）的位置填入 -inf。");
  const std::string tok0 = quoted_token(opt, 0), tok1 = quoted_token(opt, 1);
  nb.explain("self.mask is triu(ones(context_length, context_length), diagonal=1): 1 above the diagonal, where token "
                 "i would look at a later token j > i. [:num_tokens, :num_tokens] cuts it to the actual sequence and "
                 ".bool() turns the 1s into True. masked_fill_, with the trailing underscore, writes -inf into "
                 "attn_scores in place. Broadcasting aligns shapes from the right, so the same 2-D mask applies to "
                 "every text and every head: in each of them the second row, the query " + tok1 + ", keeps only its "
                 "scores for " + tok0 + " and " + tok1 + ".",
             "self.mask 是 triu(ones(context_length, context_length), diagonal=1)：对角线以上为 1，"
                 "对应词元 i 会看到其后词元 j > i 的位置。[:num_tokens, :num_tokens] 把它截取到实际的序列长度，"
                 ".bool() 把 1 变成 True。带下划线的 masked_fill_ 直接在 attn_scores 上原地写入 -inf。"
                 "广播从最右边的维度开始对齐形状，所以同一个二维掩码作用于每个文本和每个头：在每个头中，"
                 "第 2 行（查询 " + tok1 + "）只保留它对 " + tok0 + " 和 " + tok1 + " 的注意力分数。");

  nb.cell({"attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)",
           "attn_weights = self.dropout(attn_weights)", "print(attn_weights)"});
  nb.show("attn_weights", t.dropped_weights);
  const std::string scale = fmt_double(sqrt_d_k(mha.head_dim));
  nb.note("keys.shape[-1] is head_dim now, so the scaling uses sqrt(head_dim) = " + scale +
              ", per head, not sqrt(d_out).",
          "现在 keys.shape[-1] 是 head_dim，所以缩放用的是每个头的 sqrt(head_dim) = " + scale + "，而不是 sqrt(d_out)。");
  const std::string p_text = fmt_double(p);
  nb.explain("Dividing by sqrt(head_dim) keeps the dot products of head_dim-dimensional vectors in a range where "
                 "softmax does not saturate. softmax over the last dimension turns each row of each head into "
                 "attention weights that sum to 1; the -inf entries become exactly 0, so no token attends to a later "
                 "one. " +
                 (p == 0.0 ? std::string("With dropout 0.0, self.dropout changes nothing.")
                           : "self.dropout then zeroes weights at random with probability " + p_text +
                                 " (the module is in training mode) and scales the rest by 1/(1 - p)."),
             "除以 sqrt(head_dim) 让 head_dim 维向量的点积保持在 softmax 不会饱和的范围内。"
                 "在最后一个维度上做 softmax，把每个头的每一行变成和为 1 的注意力权重；-inf 的位置恰好变成 0，"
                 "因此没有词元会关注它之后的词元。" +
                 (p == 0.0 ? std::string("dropout 率为 0.0 时，self.dropout 不改变任何值。")
                           : "随后 self.dropout 以 " + p_text +
                                 " 的概率随机把注意力权重置 0（模块处于训练模式），并把其余的权重乘以 1/(1 - p)。"));
  nb.confusion("dim=-1, not dim=1. In 3.5.1 the scores were 2-D (num_tokens, num_tokens) and dim=1 was the last "
               "dimension, the keys. Here they are " + scores_shape + " = (b, num_heads, num_tokens, num_tokens): "
               "dim=1 is the HEADS dimension, and softmax(..., dim=1) would run without error but normalise across "
               "the " + str(h) + " heads instead of across the keys. dim=-1 always means the keys, however many "
               "dimensions come before them.",
               "是 dim=-1，而不是 dim=1。3.5.1 节中的注意力分数是二维的 (num_tokens, num_tokens)，dim=1 "
               "就是最后一个维度，即键。这里的形状是 " + scores_shape + " = (b, num_heads, num_tokens, num_tokens)："
               "dim=1 是头的维度，softmax(..., dim=1) 不会报错，却会在 " + str(h) +
               " 个头之间归一化，而不是在键之间。无论前面有多少个维度，dim=-1 指的始终是键。");

  nb.cell({"context_vec = (attn_weights @ values).transpose(1, 2)", "print(context_vec.shape)",
           "print((attn_weights @ values).stride(), context_vec.stride())", "print(context_vec.is_contiguous())"});
  nb.record("attn_weights @ values", t.context_heads);
  nb.show("context_vec", t.context_transposed);
  nb.print(stride_text(t.context_heads) + " " + stride_text(t.context_transposed));
  nb.print(bool_text(t.context_transposed.is_contiguous()));
  const std::string ct_shape = shape_text(t.context_transposed.shape());
  nb.note("Transposing back gives (b, num_tokens, num_heads, head_dim) = " + ct_shape +
              ", but only by swapping strides: the memory still holds head after head. stride() says how many "
              "elements to skip per step in each dimension.",
          "转置回来得到 (b, num_tokens, num_heads, head_dim) = " + ct_shape +
              "，但这只是交换了步长：内存里仍然是一个头接一个头地存放。stride() 给出每个维度前进一步要跳过多少个元素。");
  nb.explain("attn_weights @ values multiplies each head's (num_tokens, num_tokens) attention weights with its "
             "(num_tokens, head_dim) values, giving each token's context vector per head: (b, num_heads, "
             "num_tokens, head_dim). transpose(1, 2) puts the tokens before the heads again, so that each token's "
             "heads can be laid side by side. " +
                 (t.context_transposed.is_contiguous()
                      ? std::string("With a single head the swapped dimension has size 1, so the memory order still "
                                    "matches and is_contiguous() is True.")
                      : std::string("Its strides no longer decrease from left to right, and is_contiguous() says so: "
                                    "reading it in its logical order jumps around in memory.")),
             "attn_weights @ values 把每个头的 (num_tokens, num_tokens) 注意力权重与它的 (num_tokens, head_dim) "
             "值矩阵相乘，得到每个词元在每个头中的上下文向量：(b, num_heads, num_tokens, head_dim)。"
             "transpose(1, 2) 再把词元维度放回头维度之前，以便把每个词元的各个头并排放在一起。" +
                 (t.context_transposed.is_contiguous()
                      ? std::string("只有一个头时，被交换的维度大小为 1，内存顺序仍然吻合，is_contiguous() 返回 True。")
                      : std::string("它的步长不再从左到右递减，is_contiguous() 也说明了这一点：按逻辑顺序读取它时，"
                                    "需要在内存中来回跳跃。")));

  nb.cell({"context_vec = context_vec.contiguous()", "print(context_vec.stride(), context_vec.is_contiguous())",
           "context_vec = context_vec.view(b, num_tokens, self.d_out)", "print(context_vec)"});
  nb.print(stride_text(t.context_contiguous) + " " + bool_text(t.context_contiguous.is_contiguous()));
  nb.show("context_vec", t.context_merged);
  const bool viewable = can_view(t.context_transposed, {t.context_transposed.size(0), t.context_transposed.size(1), d_out});
  const std::string cc_strides = stride_text(t.context_contiguous), merged_shape = shape_text(t.context_merged.shape());
  nb.note("contiguous() copies the data into the new order, so the strides become " + cc_strides +
              " and view can merge the heads into " + b_t + "d_out) = " + merged_shape + ".",
          "contiguous() 按新的顺序复制数据，步长变为 " + cc_strides + "，view 才能把各个头合并成 " + b_t +
              "d_out) = " + merged_shape + "。");
  nb.explain("Merging num_heads and head_dim into one dimension of d_out = " + str(d_out) + " in general needs "
                 "each token's heads to lie one after another in memory. contiguous() writes a new copy of the tensor "
                 "in its current logical order, after which view only has to re-read it. This is the inverse of the "
                 "split: each token's row now holds head 0's features, then head 1's, and so on.",
             "要把 num_heads 和 head_dim 合并成一个 d_out = " + str(d_out) +
                 " 的维度，一般需要每个词元的各个头在内存中依次相邻。contiguous() 按张量当前的逻辑顺序写出一份新副本，"
                 "之后 view 只需重新解读即可。这是拆分的逆操作：每个词元的一行现在依次存放第 0 个头的特征、"
                 "第 1 个头的特征，依此类推。");
  std::string why_en, why_zh;
  if (!viewable) {
    why_en = "Here, without contiguous(), PyTorch raises: view size is not compatible with input tensor's size and "
             "stride (at least one dimension spans across two contiguous subspaces).";
    why_zh = "在这里如果省掉 contiguous()，PyTorch 会报错：view size is not compatible with input tensor's size and "
             "stride (at least one dimension spans across two contiguous subspaces)。";
  } else if (mha.head_dim == 1) {
    why_en = "(With head_dim = 1 the view would happen to work even without it, because a size-1 dimension has no "
             "stride to respect; with larger heads PyTorch raises 'view size is not compatible with input tensor's "
             "size and stride'.)";
    why_zh = "（head_dim = 1 时，即使省掉它 view 也碰巧能成功，因为大小为 1 的维度没有需要遵守的步长；"
             "头更大时 PyTorch 会报错 'view size is not compatible with input tensor's size and stride'。）";
  } else if (h == 1) {
    why_en = "(With a single head the transpose only moved a size-1 dimension, so the memory order is unchanged and "
             "the view would work even without it; with several heads of more than one feature PyTorch raises "
             "'view size is not compatible with input tensor's size and stride'.)";
    why_zh = "（只有一个头时，转置移动的只是大小为 1 的维度，内存顺序没有变化，即使省掉它 view 也能成功；"
             "有多个头且每个头不止一个特征时，PyTorch 会报错 'view size is not compatible with input tensor's size "
             "and stride'。）";
  } else {
    why_en = "(With these sizes the view would happen to work even without it; in general PyTorch raises 'view size "
             "is not compatible with input tensor's size and stride'.)";
    why_zh = "（在这些尺寸下，即使省掉它 view 也碰巧能成功；一般情况下 PyTorch 会报错 'view size is not compatible "
             "with input tensor's size and stride'。）";
  }
  nb.confusion("Why contiguous() before view? view never copies: it can only give a new shape to memory whose "
               "layout already matches it. After transpose(1, 2) one token's heads are not adjacent in memory, so "
               "merging them needs a copy, and contiguous() makes it. reshape(b, num_tokens, self.d_out) would do "
               "both in one call (copying only when needed); the book writes contiguous().view to make the copy "
               "visible. " + why_en,
               "为什么在 view 之前要调用 contiguous()？view 从不复制数据：它只能给布局已经匹配的内存换一个形状。"
               "transpose(1, 2) 之后，同一个词元的各个头在内存中并不相邻，要合并它们就必须复制，"
               "contiguous() 完成的正是这次复制。reshape(b, num_tokens, self.d_out) 能一步做完这两件事"
               "（只在需要时复制）；本书写成 contiguous().view，是为了让这次复制清晰可见。" + why_zh);

  nb.cell({"context_vec = self.out_proj(context_vec)", "return context_vec", "# back outside: context_vecs = mha(batch)",
           "print(mha.out_proj.weight)", "print(mha.out_proj.bias)", "print(context_vecs)"});
  nb.show("mha.out_proj.weight", mha.out_proj.weight);
  nb.show("mha.out_proj.bias", *mha.out_proj.bias);
  nb.show("context_vecs", t.context_vec);
  nb.note("out_proj (a Linear(d_out, d_out) with bias, drawn after the three projections) mixes the heads' "
          "features; the wrapper has no such layer, which is one reason its numbers differ.",
          "out_proj（带偏置的 Linear(d_out, d_out)，在三个投影之后抽取权重）把各个头的特征混合起来；"
          "封装类没有这一层，这也是两者数值不同的原因之一。");
  nb.explain("Up to this layer the heads never interacted: each head's context vectors came only from its own queries, keys "
             "and values. The output projection layer makes every output feature a weighted sum of all heads' "
             "features plus a bias. The book notes that it is not strictly necessary but common in LLM "
             "architectures. Its result is context_vecs, the tensor mha(batch) printed at the top.",
             "在这一层之前，各个头之间从未交互：每个头的上下文向量只来自它自己的查询、键和值。"
             "输出投影层让每个输出特征都成为所有头的特征的加权和再加上偏置。本书指出这一层并不是必需的，"
             "但在许多大语言模型架构中被广泛使用。它的结果就是 context_vecs，即开头 mha(batch) 打印的张量。");

  if (opt.gpt2) gpt2_cells(nb, opt);
  return nb;
}

}  // namespace attn
