package views

// The guide's fixed strings: its titles, labels and links. The guide's own
// words (questions, answers, advice) are data in guide.go.
func init() {
	for k, v := range map[string][2]string{
		"guide.tree":        {"判断の木", "Decision tree"},
		"guide.tree.title":  {"分散ロックを選ぶ: 判断の木", "Choosing a distributed lock: a decision tree"},
		"guide.tree.intro":  {"問いに 1 つずつ答えて、枝を下へたどる。行き着いた先 (結論) に、使うものとその理由、そしてそれを確かめられるデモのシナリオを置いた。", "Answer each question and follow the branch down. Where a branch ends, it says what to use and why, and links to the scenarios of the demo that show it."},
		"guide.tree.walk":   {"問いをたどる", "Follow the questions"},
		"guide.q":           {"問い", "Question"},
		"guide.a":           {"答え", "Answer"},
		"guide.then":        {"結論", "Then"},
		"guide.demos":       {"デモで確かめる:", "See it in the demo:"},
		"guide.where":       {"%s %s、手順 %d/%d", "%s %s, step %d of %d"},
		"guide.conclusion":  {"Kleppmann の結論", "Kleppmann's conclusion"},
		"guide.quiz":        {"確認クイズ", "Quiz"},
		"guide.quiz.title":  {"確認クイズ: 5 つの問い", "Check yourself: five questions"},
		"guide.quiz.intro":  {"まず自分で答えを考えてから、答えを開く。答えからは、それを確かめられるデモの場面へ飛べる。", "Think of your own answer first, then open the answer. Each answer links to the frames of the demo that show it."},
		"guide.q.label":     {"問 %d", "Q%d"},
		"guide.reveal":      {"問 %d の答えを見る", "Show the answer to Q%d"},
		"guide.totree":      {"判断の木: %s", "Decision tree: %s"},
		"guide.read":        {"続きを読む:", "Read on:"},
		"guide.next.quiz":   {"確認クイズで確かめる", "Check yourself with the quiz"},
		"guide.next.tree":   {"判断の木を見る", "See the decision tree"},
		"guide.next.demo":   {"シナリオ一覧", "All scenarios"},
		"guide.more":        {"次に読む", "Where next"},
		"guide.leaf.nodemo": {"デモ:", "Demo:"},
	} {
		messages[k] = v
	}
}
