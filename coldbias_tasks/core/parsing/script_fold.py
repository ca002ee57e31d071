"""Script variants folded before grounding an open answer (``core/parsing/grounding.py``):
compatibility forms (NFKC: full-width "ＭＩＴ" = "MIT", "①" = "1") and traditional Chinese
characters to their simplified forms ("北京大學" = "北京大学"), for the characters that occur in the
names files (``data/names/``) and the common characters of institution and film names.

Folding never invents a match: it maps one written form of a character to another form of the
same character, applied to both sides (the names and the answer), and a name that two items
would share after folding is refused by the names check (``core/world/names.py``). Diacritics
are already folded by the catalog keys (``catalog_index.key_forms``). The table is a small one
written for this project (each pair is the standard simplification of the General List of
Standard Chinese Characters, 2013), not a full converter: characters outside it are kept.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

__all__ = ["TRADITIONAL", "fold_script"]

#: traditional → simplified, one pair per position (same length strings).
_TRAD = (
    "學東華國臺灣開際經濟門廈師範藝術醫電飛業農書畫劍橋倫麥蘭聖亞羅達陽鄉雲龍臥紅別無間傳戰記"
    "齊漢廣復濱爾貝軍體約紐頓蘇維賓語圖瑪麗賴歐莊張葉孫錢陳鄭劉鐵環權觀現實會發們個這為來對"
    "從時動風馬鳥魚萬與專區級線總統義節貓號變剛盜夢贖蕭島慶應產岡處遼寧陝嶺溫萊徹聯鮑戶擊囧"
    "長門漁燈籠掛樣華紀緣愛邊鬥獵團險衛場觀護華靈寶態飯園陰鋼輝鎮慮遠運進過還選遺"
)
_SIMP = (
    "学东华国台湾开际经济门厦师范艺术医电飞业农书画剑桥伦麦兰圣亚罗达阳乡云龙卧红别无间传战记"
    "齐汉广复滨尔贝军体约纽顿苏维宾语图玛丽赖欧庄张叶孙钱陈郑刘铁环权观现实会发们个这为来对"
    "从时动风马鸟鱼万与专区级线总统义节猫号变刚盗梦赎萧岛庆应产冈处辽宁陕岭温莱彻联鲍户击囧"
    "长门渔灯笼挂样华纪缘爱边斗猎团险卫场观护华灵宝态饭园阴钢辉镇虑远运进过还选遗"
)
assert len(_TRAD) == len(_SIMP), "script_fold: the two tables must have the same length"
#: The traditional → simplified table (code point → code point).
TRADITIONAL = {ord(t): ord(s) for t, s in zip(_TRAD, _SIMP) if t != s}


@lru_cache(maxsize=1 << 15)
def fold_script(text: str) -> str:
    """``text`` with compatibility forms composed (NFKC) and traditional characters of the
    table simplified; ASCII text is returned as is."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", text).translate(TRADITIONAL)
